package recallbench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Outcome is one question asked of one system on one evaluation set, in a
// form every set shares: the set's metrics (Metrics[set] names them, the
// first is the one the rule judges), the half it belongs to, its latency.
type Outcome struct {
	Set, System, Type string
	Q                 int // the question's index within its set, to pair systems
	Held              bool
	Values            []float64
	Latency           time.Duration
}

// Set names.
const (
	SetRecallData = "recalldata"
	SetRealMem    = "realmem"
	SetLifelike   = "lifelike"
)

// Metrics names each set's metrics, the rule's metric first.
var Metrics = map[string][]string{
	SetRecallData: {"hit@1", "hit@3"},
	SetRealMem:    {"R@5", "R@10"},
	SetLifelike:   {"hit@3", "hit@1", "R@5", "turn@3"},
}

// heldOut puts every other question in the held-out half: the tuning half
// is what stages and constants were chosen on.
func heldOut(i int) bool { return i%2 == 1 }

// SummaryRow is one system on one (set, type): its metrics on all
// questions, its rule metric on the held-out half, and the paired
// difference of the rule metric to the floor with its noise (2 standard
// errors of the per-question differences).
type SummaryRow struct {
	Set, Type, System string
	N                 int
	Values            []float64
	Held              float64
	Delta, Noise      float64
	// VsShipped is the same paired difference against the shipped pipeline,
	// for ablation rows: what taking a stage out (or putting one in) did.
	VsShipped, VsShippedNoise float64
	P50, P95                  float64
}

// Summarize aggregates outcomes per set, type and system; floor names the
// system every other is compared with.
func Summarize(outs []Outcome, floor string) []SummaryRow {
	type key struct{ set, typ, sys string }
	groups := map[key][]Outcome{}
	var keys []key
	add := func(k key, o Outcome) {
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], o)
	}
	for _, o := range outs {
		add(key{o.Set, o.Type, o.System}, o)
		add(key{o.Set, "all", o.System}, o)
	}
	var rows []SummaryRow
	for _, k := range keys {
		g := groups[k]
		r := SummaryRow{Set: k.set, Type: k.typ, System: k.sys, N: len(g)}
		nm := len(Metrics[k.set])
		r.Values = make([]float64, nm)
		var held, nheld float64
		lats := make([]time.Duration, 0, len(g))
		for _, o := range g {
			for i := 0; i < nm && i < len(o.Values); i++ {
				r.Values[i] += o.Values[i]
			}
			if o.Held {
				held += o.Values[0]
				nheld++
			}
			if o.Latency > 0 { // an untimed floor query counts in no percentile
				lats = append(lats, o.Latency)
			}
		}
		for i := range r.Values {
			r.Values[i] /= float64(len(g))
		}
		if nheld > 0 {
			r.Held = held / nheld
		}
		slices.Sort(lats)
		r.P50, r.P95 = ms(percentile(lats, 0.5)), ms(percentile(lats, 0.95))
		if fl, ok := groups[key{k.set, k.typ, floor}]; ok && k.sys != floor {
			r.Delta, r.Noise = pairedDelta(g, fl)
		}
		if sh, ok := groups[key{k.set, k.typ, DefaultName}]; ok && k.sys != floor && k.sys != DefaultName {
			r.VsShipped, r.VsShippedNoise = pairedDelta(g, sh)
		}
		rows = append(rows, r)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Set != b.Set {
			return setOrder(a.Set) < setOrder(b.Set)
		}
		if a.Type != b.Type {
			if a.Type == "all" || b.Type == "all" {
				return a.Type == "all"
			}
			return a.Type < b.Type
		}
		return false
	})
	return rows
}

func setOrder(s string) int {
	switch s {
	case SetRecallData:
		return 0
	case SetRealMem:
		return 1
	}
	return 2
}

// pairedDelta is the mean per-question difference of the rule metric
// between a and the floor b, and twice its standard error.
func pairedDelta(a, b []Outcome) (float64, float64) {
	bv := map[int]float64{}
	for _, o := range b {
		bv[o.Q] = o.Values[0]
	}
	var d []float64
	for _, o := range a {
		if v, ok := bv[o.Q]; ok {
			d = append(d, o.Values[0]-v)
		}
	}
	if len(d) == 0 {
		return 0, 0
	}
	var mean float64
	for _, x := range d {
		mean += x
	}
	mean /= float64(len(d))
	if len(d) < 2 {
		return mean, math.Inf(1)
	}
	var ss float64
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	se := math.Sqrt(ss/float64(len(d)-1)) / math.Sqrt(float64(len(d)))
	return mean, 2 * se
}

// Verdict says how a row stands against the floor: "+" above it beyond
// noise, "−" below it beyond noise, "=" within noise.
func (r SummaryRow) Verdict() string {
	switch {
	case r.Noise == 0 && r.Delta == 0:
		return ""
	case r.Delta > r.Noise:
		return "+"
	case r.Delta < -r.Noise:
		return "−"
	}
	return "="
}

// WriteSummary writes the rows as Markdown, one table per set.
func WriteSummary(w io.Writer, rows []SummaryRow) {
	set := ""
	for _, r := range rows {
		if r.Set != set {
			set = r.Set
			ms := Metrics[set]
			fmt.Fprintf(w, "\n**%s**\n\n| type | system | n | %s | held-out %s | Δ %s vs floor ± noise | Δ vs shipped ± noise | p50 ms | p95 ms |\n",
				set, strings.Join(ms, " | "), ms[0], ms[0])
			fmt.Fprintf(w, "|---|---|---:|%s---:|---:|---:|---:|---:|\n", strings.Repeat("---:|", len(ms)))
		}
		vals := make([]string, len(r.Values))
		for i, v := range r.Values {
			vals[i] = fmt.Sprintf("%.3f", v)
		}
		delta := ""
		if r.Verdict() != "" {
			delta = fmt.Sprintf("%+.3f ± %.3f %s", r.Delta, r.Noise, r.Verdict())
		}
		vs := ""
		if r.VsShippedNoise != 0 || r.VsShipped != 0 {
			vs = fmt.Sprintf("%+.3f ± %.3f", r.VsShipped, r.VsShippedNoise)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %.3f | %s | %s | %.2f | %.2f |\n",
			r.Type, r.System, r.N, strings.Join(vals, " | "), r.Held, delta, vs, r.P50, r.P95)
	}
}
