package funestest

import (
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// benchWords is a small vocabulary: common words recur across conversations,
// as in real chats, so BM25 has frequent and rare terms to weigh.
var benchWords = strings.Fields(`the pump seal leak line reject rate owner ticket decision vibration alarm
compressor bearing motor fan lubrication south north east west site plant shift week report measured raised
order work team agreed deploy service gateway migration schema database index query budget quarter release
customer invoice shipping warehouse forklift sensor calibration firmware update rollback incident outage
pager latency cache memory disk network router switch firewall certificate renewal contract vendor meeting
lunch coffee weather weekend holiday train delay office printer badge laptop screen keyboard mouse`)

// benchVocab is benchWords followed by a long tail of made-up words, drawn
// with a Zipf law as real text is: a few words everywhere, most words rare.
var benchVocab = func() []string {
	common := strings.Fields(`the to and a of in is it you that for on we this with be was are have not at
	can but so if as do from just will what about would should there they then one all out up time need
	like get use make know think see also new now way more some only good well first last next`)
	syl := strings.Fields("ka lo mi ren tas vor pel dun gri sho bal tek mur zan fi po le quo ast ini")
	r := rand.New(rand.NewSource(99))
	v := append(append([]string{}, common...), benchWords...)
	seen := map[string]bool{}
	for len(v) < 8000 {
		w := syl[r.Intn(len(syl))] + syl[r.Intn(len(syl))] + syl[r.Intn(len(syl))]
		if !seen[w] {
			seen[w] = true
			v = append(v, w)
		}
	}
	return v
}()

// Generated makes n conversations of six turns, each hiding one fact
// with an identifier among small talk, over a year from 2025 and four
// sources: the memory the benchmarks of memory and recall measure on.
// Deterministic for a seed.
func Generated(n int, seed int64) []*funes.Session {
	r := rand.New(rand.NewSource(seed))
	z := rand.NewZipf(r, 1.07, 2, uint64(len(benchVocab)-1))
	pick := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = benchVocab[z.Uint64()]
		}
		return strings.Join(ws, " ")
	}
	out := make([]*funes.Session, n)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range out {
		id := fmt.Sprintf("bench-%05d", i)
		start := base.Add(time.Duration(r.Intn(365*24)) * time.Hour)
		texts := []string{
			"Morning. " + pick(25) + "?",
			"Sure. " + pick(40) + ".",
			fmt.Sprintf("The %s on %s-%03d: ticket MT-%d was raised, reject rate %d.%d%%. %s.", pick(2), string(rune('A'+r.Intn(26))), r.Intn(1000), 1000+r.Intn(9000), r.Intn(10), r.Intn(10), pick(20)),
			"Noted. " + pick(45) + ".",
			"Thanks. " + pick(15) + ".",
			"Anytime. " + pick(10) + ".",
		}
		out[i] = Conv(id, []string{funes.HarnessChatGPT, funes.HarnessClaude, funes.HarnessCodex, funes.HarnessClaudeCode}[i%4], pick(4), "", start, texts...)
	}
	return out
}
