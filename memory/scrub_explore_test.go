package memory

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestScrubRuleCost(t *testing.T) {
	det, _ := defaultDetector()
	blocks, size := benchBlocks()
	type rc struct {
		id  string
		d   time.Duration
		n   int
	}
	var out []rc
	for id, r := range det.Config.Rules {
		if r.Regex == nil {
			continue
		}
		var d time.Duration
		n := 0
		for _, b := range blocks {
			low := strings.ToLower(b)
			hit := len(r.Keywords) == 0
			for _, k := range r.Keywords {
				if strings.Contains(low, strings.ToLower(k)) {
					hit = true
					break
				}
			}
			if !hit {
				continue
			}
			n++
			t0 := time.Now()
			r.Regex.FindAllStringIndex(b, -1)
			d += time.Since(t0)
		}
		out = append(out, rc{id, d, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].d > out[j].d })
	var tot time.Duration
	for _, o := range out {
		tot += o.d
	}
	fmt.Printf("size %d MB, total regex %v\n", size>>20, tot)
	for _, o := range out[:25] {
		fmt.Printf("%-40s %8v  blocks=%d kw=%v\n", o.id, o.d.Round(time.Millisecond), o.n, det.Config.Rules[o.id].Keywords)
	}
	u := urlPasswordRe
	t0 := time.Now()
	for _, b := range blocks {
		u.FindAllStringSubmatchIndex(b, -1)
	}
	fmt.Println("url-password", time.Since(t0))
	t0 = time.Now()
	for _, b := range blocks {
		strings.ToLower(b)
	}
	fmt.Println("tolower", time.Since(t0))
}
