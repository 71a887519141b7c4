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
// form every set shares: the set's metrics (Metrics[set] names them; NA
// where a metric does not apply to the question), the half it belongs to,
// its latency.
type Outcome struct {
	Set, System, Type string
	Q                 int // the question's index within its set, to pair systems
	Held              bool
	Values            []float64
	Latency           time.Duration
}

// NA marks a metric that does not apply to a question (a turn metric for a
// question whose evidence names no turn); means and differences skip it.
const NA = -1.0

// Set names.
const (
	SetRecallData = "recalldata"
	SetRealMem    = "realmem"
	SetLifelike   = "lifelike"
	SetRHELM      = "rhelm"
	SetAgentwork  = "agentwork"
)

// Metrics names each set's metrics. "turn" metrics count evidence turns
// themselves among the hits; the others count the evidence conversation
// among the hits' conversations.
var Metrics = map[string][]string{
	SetRecallData: {"hit@1", "hit@3"},
	SetRealMem:    {"R@5", "R@10", "turn R@5", "turn R@10"},
	SetLifelike:   {"hit@3", "hit@1", "R@5", "turn@3", "turn R@5"},
	SetRHELM:      {"turn R@5", "turn hit@5", "turn R@10", "conv R@5", "conv hit@5"},
	SetAgentwork:  {"hit@3", "hit@1", "turn@3", "turn@1"},
}

// Rule is the metric the rule judges a set on at one granularity.
type Rule struct {
	Gran   string // "turn" or "conv"
	Metric int    // index into Metrics[set]
}

// Rules are each set's rule metrics, one per granularity it has evidence
// for; recalldata names only the conversation.
var Rules = map[string][]Rule{
	SetRecallData: {{"conv", 0}},
	SetRealMem:    {{"turn", 2}, {"conv", 0}},
	SetLifelike:   {{"turn", 3}, {"conv", 0}},
	SetRHELM:      {{"turn", 0}, {"conv", 3}},
	SetAgentwork:  {{"turn", 2}, {"conv", 0}},
}

// heldOut puts every other question in the held-out half: the tuning half
// is what stages and constants were chosen on.
func heldOut(i int) bool { return i%2 == 1 }

// Judged is a row's standing on one rule metric: the metric on the
// held-out half, and the paired differences (each with its noise, 2
// standard errors of the per-question differences) to the floor and, for
// ablation rows, to the shipped pipeline.
type Judged struct {
	Rule                      Rule
	Held                      float64
	Delta, Noise              float64
	VsShipped, VsShippedNoise float64
}

// SummaryRow is one system on one (set, type): its metrics on all
// questions they apply to, and its standing on each rule metric.
type SummaryRow struct {
	Set, Type, System string
	N                 int
	Values            []float64
	Judged            []Judged
	P50, P95          float64
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
		for i := range r.Values {
			r.Values[i] = mean(g, i, false)
		}
		lats := make([]time.Duration, 0, len(g))
		for _, o := range g {
			if o.Latency > 0 { // an untimed floor query counts in no percentile
				lats = append(lats, o.Latency)
			}
		}
		slices.Sort(lats)
		r.P50, r.P95 = ms(percentile(lats, 0.5)), ms(percentile(lats, 0.95))
		fl, hasFloor := groups[key{k.set, k.typ, floor}]
		sh, hasShipped := groups[key{k.set, k.typ, DefaultName}]
		for _, rule := range Rules[k.set] {
			j := Judged{Rule: rule, Held: mean(g, rule.Metric, true)}
			if hasFloor && k.sys != floor {
				j.Delta, j.Noise = pairedDelta(g, fl, rule.Metric)
			}
			if hasShipped && k.sys != floor && k.sys != DefaultName {
				j.VsShipped, j.VsShippedNoise = pairedDelta(g, sh, rule.Metric)
			}
			r.Judged = append(r.Judged, j)
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

// mean is metric i over the outcomes it applies to (only the held-out half
// when held); 0 when it applies to none.
func mean(g []Outcome, i int, held bool) float64 {
	var sum, n float64
	for _, o := range g {
		if i < len(o.Values) && o.Values[i] != NA && (!held || o.Held) {
			sum += o.Values[i]
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / n
}

func setOrder(s string) int {
	switch s {
	case SetRecallData:
		return 0
	case SetRealMem:
		return 1
	case SetLifelike:
		return 2
	case SetRHELM:
		return 3
	}
	return 4
}

// pairedDelta is the mean per-question difference of metric i between a
// and b (the floor, or the shipped pipeline), and twice its standard error,
// over the questions the metric applies to.
func pairedDelta(a, b []Outcome, i int) (float64, float64) {
	bv := map[int]float64{}
	for _, o := range b {
		if i < len(o.Values) && o.Values[i] != NA {
			bv[o.Q] = o.Values[i]
		}
	}
	var d []float64
	for _, o := range a {
		if i >= len(o.Values) || o.Values[i] == NA {
			continue
		}
		if v, ok := bv[o.Q]; ok {
			d = append(d, o.Values[i]-v)
		}
	}
	if len(d) == 0 {
		return 0, 0
	}
	var m float64
	for _, x := range d {
		m += x
	}
	m /= float64(len(d))
	if len(d) < 2 {
		return m, math.Inf(1)
	}
	var ss float64
	for _, x := range d {
		ss += (x - m) * (x - m)
	}
	se := math.Sqrt(ss/float64(len(d)-1)) / math.Sqrt(float64(len(d)))
	return m, 2 * se
}

// Verdict says how a row stands against the floor on a rule metric: "+"
// above it beyond noise, "−" below it beyond noise, "=" within noise.
func (j Judged) Verdict() string { return verdict(j.Delta, j.Noise) }

// VsShippedVerdict is the same against the shipped pipeline.
func (j Judged) VsShippedVerdict() string { return verdict(j.VsShipped, j.VsShippedNoise) }

func verdict(d, noise float64) string {
	switch {
	case noise == 0 && d == 0:
		return ""
	case d > noise:
		return "+"
	case d < -noise:
		return "−"
	}
	return "="
}

// WriteSummary writes the rows as Markdown, one table per set: every
// metric, then for each granularity's rule metric its held-out value, its
// difference to the floor and (ablations) to the shipped pipeline.
func WriteSummary(w io.Writer, rows []SummaryRow) {
	set := ""
	for _, r := range rows {
		if r.Set != set {
			set = r.Set
			ms := Metrics[set]
			var judged []string
			for _, ru := range Rules[set] {
				m := ms[ru.Metric]
				judged = append(judged, fmt.Sprintf("held-out %s", m), fmt.Sprintf("Δ %s vs floor ± noise", m), fmt.Sprintf("Δ %s vs shipped ± noise", m))
			}
			fmt.Fprintf(w, "\n**%s**\n\n| type | system | n | %s | %s | p50 ms | p95 ms |\n",
				set, strings.Join(ms, " | "), strings.Join(judged, " | "))
			fmt.Fprintf(w, "|---|---|---:|%s%s---:|---:|\n", strings.Repeat("---:|", len(ms)), strings.Repeat("---:|", 3*len(Rules[set])))
		}
		vals := make([]string, len(r.Values))
		for i, v := range r.Values {
			vals[i] = fmt.Sprintf("%.3f", v)
		}
		var judged []string
		for _, j := range r.Judged {
			delta, vs := "", ""
			if v := j.Verdict(); v != "" {
				delta = fmt.Sprintf("%+.3f ± %.3f %s", j.Delta, j.Noise, v)
			}
			if v := j.VsShippedVerdict(); v != "" {
				vs = fmt.Sprintf("%+.3f ± %.3f %s", j.VsShipped, j.VsShippedNoise, v)
			}
			judged = append(judged, fmt.Sprintf("%.3f", j.Held), delta, vs)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %.2f | %.2f |\n",
			r.Type, r.System, r.N, strings.Join(vals, " | "), strings.Join(judged, " | "), r.P50, r.P95)
	}
}
