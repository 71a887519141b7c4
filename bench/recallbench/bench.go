// Package recallbench runs the recall-quality benchmark of issue 7: it
// generates a synthetic history with bench/recalldata, writes it in the four
// export formats, imports it through the importers (the `ireneo import` code
// path) into a fresh memory, asks every question of recall.Recall and of a
// bare FTS5 BM25 baseline, and reports strict hit@1/3/8, whether the answer
// is in the returned text at k=3, and recall latency, per question type.
package recallbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/bench/recalldata"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/plumbing"
	"github.com/ireneo-app/ireneo/recall"
)

// Ingest modes.
const (
	IngestImport = "import" // write the exports and run importers.Run over them
	IngestDirect = "direct" // skip the exports: m.Ingest the ideal sessions
)

// BaselineName names the bare FTS5 baseline in reports.
const BaselineName = "fts5-bare"

// Options configure a run.
type Options struct {
	N       int    // conversations
	Seed    uint64 // generator seed
	Types   []string
	K       int // hits asked of recall; default 8
	Budget  int // recall token budget; 0 is memory's default
	Ingest  string
	Configs []Config // the recall configurations to measure
	// Baseline adds the bare FTS5 baseline.
	Baseline bool
	// Misses, if set, receives every miss at k=3.
	Misses io.Writer
	// Log, if set, receives progress lines.
	Log io.Writer
	// Dir, if set, is where the run keeps its exports, memory and baseline;
	// otherwise a temporary folder that is removed afterwards.
	Dir string
	// Reuse, with Dir, skips writing and importing when Dir already holds a
	// memory imported from the same history the same way.
	Reuse bool
	// LatencySample is how many questions of each type the baseline's
	// SQL query is timed on; default 40, negative for all.
	LatencySample int
	// Questions per type (recalldata.Config); zero takes its defaults.
	FactQuestions, NoIDQuestions, UpdateQuestions int
	// Now is the time the questions are asked at (recall.Options.Now); zero
	// is RecallDataNow, after the history.
	Now time.Time
}

// The time of asking of the sets whose questions carry none: just after
// each history ends.
var (
	RecallDataNow = time.Date(2026, 12, 8, 12, 0, 0, 0, time.UTC)
	LifelikeNow   = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	AgentworkNow  = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
)

// Result is one hit as the benchmark scores it.
type Result struct {
	Harness, SessionID string
	Text               string // the text returned with the hit, neighbours included
	Score              string // the score and its parts, for the miss report
}

// Row is the score of one system on one question type.
type Row struct {
	N         int     `json:"n"`
	System    string  `json:"system"`
	Type      string  `json:"type"`
	Questions int     `json:"questions"`
	Hit1      float64 `json:"hit1"`
	Hit3      float64 `json:"hit3"`
	Hit8      float64 `json:"hit8"`
	Ans3      float64 `json:"answer3"`
	P50       float64 `json:"p50_ms"`
	P95       float64 `json:"p95_ms"`
	Timed     int     `json:"timed"` // questions the latency is measured on
}

// Report is what a run measured.
type Report struct {
	N             int           `json:"n"`
	Seed          uint64        `json:"seed"`
	Conversations int           `json:"conversations"`
	Turns         int           `json:"turns"`
	Generate      time.Duration `json:"generate_ns"`
	Write         time.Duration `json:"write_ns"`
	Import        time.Duration `json:"import_ns"`
	ImportCheck   ImportCheck   `json:"import_check"`
	BaselineCheck BaselineCheck `json:"baseline_check"`
	Rows          []Row         `json:"rows"`
	// Outcomes are the per-question scores for the cross-set summary; the
	// baseline is named FloorName there, timed only where its SQL ran.
	Outcomes []Outcome `json:"-"`
}

// BaselineCheck says how the baseline's latency was measured: the SQL query
// is timed on a sample of each type's questions (the first LatencySample),
// and the Go ranking that scored every question is compared with it there.
type BaselineCheck struct {
	Timed int `json:"timed"` // SQL queries timed
	Agree int `json:"agree"` // of them, ranked the same by the Go mirror
}

// ImportCheck compares what the importers stored with what was generated.
type ImportCheck struct {
	Expected int `json:"expected"` // generated conversations
	Found    int `json:"found"`    // of them, stored under their harness and id
	Answer   int `json:"answer"`   // of them, with the fact's answer in their text
	Turns    int `json:"turns"`    // of them, with as many user and assistant turns as generated
	Extra    int `json:"extra"`    // stored conversations that were not generated
	Leaks    int `json:"leaks"`    // stored turns holding text an importer should drop
	Failures []string
}

// scored is one question's outcome on one system.
type scored struct {
	q       recalldata.Question
	rank    int // 1-based rank of the first hit from the expected conversation; 0 = none
	answer3 bool
	latency time.Duration
	hits    []Result
}

// Run runs the benchmark once, for opts.N conversations.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.K <= 0 {
		opts.K = 8
	}
	if opts.Ingest == "" {
		opts.Ingest = IngestImport
	}
	logf := func(format string, a ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", a...)
		}
	}
	dir := opts.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "ireneo-bench-recall-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}

	rep := &Report{N: opts.N, Seed: opts.Seed}
	t0 := time.Now()
	d := recalldata.Generate(recalldata.Config{
		N: opts.N, Seed: opts.Seed,
		FactQuestions: opts.FactQuestions, NoIDQuestions: opts.NoIDQuestions, UpdateQuestions: opts.UpdateQuestions,
	})
	rep.Generate = time.Since(t0)
	rep.Conversations = len(d.Conversations)
	questions := recalldata.Filter(d.Questions, opts.Types)
	logf("N=%d: generated %d conversations and %d questions in %v", opts.N, len(d.Conversations), len(questions), rep.Generate.Round(time.Millisecond))

	memDir := filepath.Join(dir, fmt.Sprintf("memory-%d", opts.N))
	stampPath := filepath.Join(dir, fmt.Sprintf("memory-%d.stamp", opts.N))
	stamp := fmt.Sprintf("%s %x\n", opts.Ingest, d.Digest())
	reuse := false
	if old, err := os.ReadFile(stampPath); err == nil && opts.Reuse && string(old) == stamp {
		reuse = true
	} else {
		os.Remove(stampPath)
		os.RemoveAll(memDir)
	}
	m, err := memory.Open(memDir)
	if err != nil {
		return nil, err
	}
	defer m.Close()

	switch {
	case reuse:
		logf("N=%d: reusing the memory in %s", opts.N, memDir)
	case opts.Ingest == IngestImport:
		t0 = time.Now()
		expDir := filepath.Join(dir, fmt.Sprintf("exports-%d", opts.N))
		os.RemoveAll(expDir)
		e, err := d.WriteExports(expDir)
		if err != nil {
			return nil, fmt.Errorf("write exports: %w", err)
		}
		rep.Write = time.Since(t0)
		t0 = time.Now()
		sum, err := importers.Run(ctx, m, e.Paths(), importers.Options{})
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		rep.Import = time.Since(t0)
		for _, f := range sum.Failures {
			rep.ImportCheck.Failures = append(rep.ImportCheck.Failures, "failed: "+f.Path+": "+f.Reason)
		}
		for _, f := range sum.Skipped {
			rep.ImportCheck.Failures = append(rep.ImportCheck.Failures, "skipped: "+f.Path+": "+f.Reason)
		}
		logf("N=%d: wrote %d export files in %v; imported %d inputs (%d new) in %v",
			opts.N, e.Files, rep.Write.Round(time.Millisecond), sum.Inputs, sum.New, rep.Import.Round(time.Millisecond))
	case opts.Ingest == IngestDirect:
		t0 = time.Now()
		if _, err := m.Ingest(ctx, d.Sessions(), memory.IngestOptions{}); err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
		rep.Import = time.Since(t0)
		logf("N=%d: ingested directly in %v", opts.N, rep.Import.Round(time.Millisecond))
	default:
		return nil, fmt.Errorf("unknown ingest mode %q", opts.Ingest)
	}
	if !reuse {
		if err := os.WriteFile(stampPath, []byte(stamp), 0o644); err != nil {
			return nil, err
		}
	}

	// The baseline indexes the turns the importers stored, read back from
	// the verbatim files; checking them against the dataset on the way.
	stored, err := ReadSources(memDir)
	if err != nil {
		return nil, err
	}
	rep.ImportCheck = checkImport(d, stored, rep.ImportCheck.Failures)
	for _, s := range stored {
		rep.Turns += len(s.Turns)
	}
	ic := rep.ImportCheck
	logf("N=%d: import check: %d/%d conversations found, %d with their answer, %d with the generated turns; %d extra, %d leaked turns",
		opts.N, ic.Found, ic.Expected, ic.Answer, ic.Turns, ic.Extra, ic.Leaks)

	systems := make([]system, 0, len(opts.Configs)+1)
	if opts.Baseline {
		bpath := filepath.Join(dir, fmt.Sprintf("baseline-%d.db", opts.N))
		os.Remove(bpath)
		b, err := OpenBaseline(bpath)
		if err != nil {
			return nil, err
		}
		defer b.Close()
		var docs []Doc
		for _, s := range stored {
			for _, t := range s.Turns {
				docs = append(docs, Doc{Harness: s.Harness, SessionID: s.ID, Title: s.Title, Text: t.Text()})
			}
		}
		t0 = time.Now()
		if err := b.Build(ctx, docs); err != nil {
			return nil, err
		}
		texts := make([]string, len(questions))
		for i, q := range questions {
			texts[i] = q.Text
		}
		if err := b.Prepare(ctx, texts); err != nil {
			return nil, err
		}
		logf("N=%d: baseline indexed %d turns in %v", opts.N, b.Turns, time.Since(t0).Round(time.Millisecond))
		systems = append(systems, system{name: BaselineName, search: b.Search, base: b})
	}
	for _, c := range opts.Configs {
		now := opts.Now
		if now.IsZero() {
			now = RecallDataNow
		}
		systems = append(systems, system{name: c.Name, search: recallSearch(m, c, opts.Budget, now)})
	}

	byID := d.ByID()
	var lexical map[string]bool
	if opts.Baseline {
		if lexical, err = lexicalNoID(ctx, systems[0].base, questions, byID); err != nil {
			return nil, err
		}
	}
	for _, sys := range systems {
		t0 = time.Now()
		res := make([]scored, 0, len(questions))
		for _, q := range questions {
			start := time.Now()
			hits, err := sys.search(ctx, q.Text, opts.K)
			lat := time.Since(start)
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %w", sys.name, q.Text, err)
			}
			res = append(res, score(q, hits, lat))
		}
		logf("N=%d: %s answered %d questions in %v", opts.N, sys.name, len(res), time.Since(t0).Round(time.Millisecond))
		rows := aggregate(opts.N, sys.name, res)
		if lexical != nil {
			rows = append(rows, splitNoID(opts.N, sys.name, res, lexical)...)
		}
		name := sys.name
		if sys.base != nil {
			name = FloorName
			timed, err := baselineLatency(ctx, sys.base, res, rows, opts, &rep.BaselineCheck)
			if err != nil {
				return nil, err
			}
			for i := range res {
				res[i].latency = timed[i]
			}
			bc := rep.BaselineCheck
			logf("N=%d: %s: timed %d SQL queries; the Go ranking agrees with SQLite on %d of them", opts.N, sys.name, bc.Timed, bc.Agree)
		}
		rep.Rows = append(rep.Rows, rows...)
		for i, r := range res {
			rep.Outcomes = append(rep.Outcomes, Outcome{Set: SetRecallData, System: name, Type: r.q.Type, Q: i, Held: heldOut(i),
				Values: []float64{b2f(r.rank == 1), b2f(r.rank >= 1 && r.rank <= 3)}, Latency: r.latency})
		}
		if opts.Misses != nil {
			printMisses(opts.Misses, opts.N, sys.name, res, byID)
		}
	}
	return rep, nil
}

type system struct {
	name   string
	search func(ctx context.Context, q string, k int) ([]Result, error)
	base   *Baseline
}

// timedRecall asks m with configuration c applied to o and says how long it
// took; a question with nothing left to search finds nothing.
// floorOf opens the floor over the conversations stored in memDir's src/,
// in a temporary folder that goes when it is closed.
func floorOf(ctx context.Context, memDir string) (*Floor, error) {
	stored, err := ReadSources(memDir)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "ireneo-bench-floor-")
	if err != nil {
		return nil, err
	}
	fl, err := OpenFloor(ctx, filepath.Join(tmp, "floor.db"), stored)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	fl.removeDir = tmp
	return fl, nil
}

// memoryAndFloor makes a memory of sessions and the floor over them, in dir.
func memoryAndFloor(ctx context.Context, dir string, sessions []*funes.Session) (*memory.Memory, *Floor, error) {
	m, err := memory.Open(filepath.Join(dir, "memory"))
	if err != nil {
		return nil, nil, err
	}
	if _, err := m.Ingest(ctx, sessions, memory.IngestOptions{}); err != nil {
		m.Close()
		return nil, nil, err
	}
	fl, err := OpenFloor(ctx, filepath.Join(dir, "floor.db"), sessions)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, fl, nil
}

// hitID names a hit: its source, conversation and turn.
type hitID struct{ harness, session, turn string }

// askAll puts one question to the floor and then to each configuration,
// ro.K hits each, the floor seeing only what was said before ro.Until as
// recall does, and scores every list alike: o's outcomes, the floor's first.
func askAll(ctx context.Context, fl *Floor, m *memory.Memory, cfgs []Config, o Outcome, ro recall.Options, score func([]hitID) []float64) ([]Outcome, error) {
	start := time.Now()
	fh, err := fl.Search(ctx, ro.Query, ro.Until, ro.K)
	if err != nil {
		return nil, err
	}
	o.System, o.Latency = FloorName, time.Since(start)
	hits := make([]hitID, len(fh))
	for i, h := range fh {
		hits[i] = hitID{h.Harness, h.SessionID, h.TurnUUID}
	}
	o.Values = score(hits)
	outs := []Outcome{o}
	for _, c := range cfgs {
		rh, lat, err := timedRecall(ctx, m, c, ro)
		if err != nil {
			return nil, err
		}
		hits := make([]hitID, len(rh))
		for i, h := range rh {
			hits[i] = hitID{h.Source, h.SessionID, h.TurnUUID}
		}
		oc := o
		oc.System, oc.Latency, oc.Values = c.Name, lat, score(hits)
		outs = append(outs, oc)
	}
	return outs, nil
}

func timedRecall(ctx context.Context, m *memory.Memory, c Config, o recall.Options) ([]recall.Hit, time.Duration, error) {
	if c.Apply != nil {
		c.Apply(&o)
	}
	start := time.Now()
	r, err := recall.Recall(ctx, m, o)
	lat := time.Since(start)
	if errors.Is(err, recall.ErrEmptyQuery) {
		return nil, lat, nil
	}
	if err != nil {
		return nil, lat, fmt.Errorf("%s: %q: %w", c.Name, o.Query, err)
	}
	return r.Hits, lat, nil
}

func recallSearch(m *memory.Memory, c Config, budget int, now time.Time) func(context.Context, string, int) ([]Result, error) {
	return func(ctx context.Context, q string, k int) ([]Result, error) {
		o := recall.Options{Query: q, K: k, Budget: budget, Now: now}
		if c.Apply != nil {
			c.Apply(&o)
		}
		r, err := recall.Recall(ctx, m, o)
		if err != nil {
			return nil, err
		}
		out := make([]Result, len(r.Hits))
		for i, h := range r.Hits {
			var b strings.Builder
			b.WriteString(h.Text)
			for _, n := range h.Neighbors {
				b.WriteString("\n")
				b.WriteString(n.Text)
			}
			out[i] = Result{Harness: h.Source, SessionID: h.SessionID, Text: b.String(),
				Score: fmt.Sprintf("%.3f bm25=%.3f rec=%.3f seq=%d", h.Score, h.Signals.BM25, h.Signals.Recency, h.Seq)}
		}
		return out, nil
	}
}

func score(q recalldata.Question, hits []Result, lat time.Duration) scored {
	s := scored{q: q, latency: lat, hits: hits}
	for i, h := range hits {
		if h.Harness == q.Harness && h.SessionID == q.SessionID {
			s.rank = i + 1
			break
		}
	}
	for i := 0; i < len(hits) && i < 3; i++ {
		if strings.Contains(hits[i].Text, q.Answer) {
			s.answer3 = true
			break
		}
	}
	return s
}

// baselineLatency times the bare SQL query on a sample of each type's
// questions, puts its percentiles in the baseline's rows, and checks the Go
// ranking against SQLite on the same questions.
func baselineLatency(ctx context.Context, b *Baseline, res []scored, rows []Row, opts Options, bc *BaselineCheck) (map[int]time.Duration, error) {
	timed := map[int]time.Duration{}
	sample := opts.LatencySample
	if sample == 0 {
		sample = 40
	}
	byType := map[string][]time.Duration{}
	var all []time.Duration
	for qi, r := range res {
		t := r.q.Type
		if sample > 0 && len(byType[t]) >= sample {
			continue
		}
		start := time.Now()
		if _, err := b.SearchSQL(ctx, r.q.Text, opts.K); err != nil {
			return nil, err
		}
		d := time.Since(start)
		timed[qi] = d
		byType[t] = append(byType[t], d)
		all = append(all, d)
		ok, err := b.Agrees(ctx, r.q.Text, opts.K)
		if err != nil {
			return nil, err
		}
		bc.Timed++
		if ok {
			bc.Agree++
		}
	}
	byType["all"] = all
	for i := range rows {
		typ, _, _ := strings.Cut(rows[i].Type, "/") // noid/lexical is timed with noid
		lats := byType[typ]
		slices.Sort(lats)
		rows[i].P50 = ms(percentile(lats, 0.50))
		rows[i].P95 = ms(percentile(lats, 0.95))
		rows[i].Timed = len(lats)
	}
	return timed, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// noidStop are words that do not make a topic match.
var noidStop = map[string]bool{"the": true, "a": true, "it": true, "of": true, "to": true, "in": true,
	"on": true, "at": true, "for": true, "out": true, "up": true, "is": true, "that": true, "was": true}

// lexicalNoID tells, for each identifier-free question, whether its topic
// words share a stem (FTS5's porter tokenizer) with the fact's message:
// when they do not, only the site and the machine kind match, and lexical
// recall cannot tell the conversation from the others about that machine
// kind at that site.
func lexicalNoID(ctx context.Context, b *Baseline, qs []recalldata.Question, byID map[[2]string]*recalldata.Conversation) (map[string]bool, error) {
	out := map[string]bool{}
	stems := func(s string) (map[string]bool, error) {
		set := map[string]bool{}
		for _, w := range queryWords(s) {
			toks, err := b.mirror.tokens(ctx, w)
			if err != nil {
				return nil, err
			}
			for _, t := range toks {
				if !noidStop[t] {
					set[t] = true
				}
			}
		}
		return set, nil
	}
	for _, q := range qs {
		if q.Type != recalldata.TypeNoID {
			continue
		}
		c := byID[[2]string{q.Harness, q.SessionID}]
		topic, err := stems(q.Topic)
		if err != nil {
			return nil, err
		}
		fact, err := stems(c.Messages[c.FactMsg].Text)
		if err != nil {
			return nil, err
		}
		for t := range topic {
			if fact[t] {
				out[q.ID] = true
			}
		}
	}
	return out, nil
}

// splitNoID scores identifier-free questions apart by whether their topic
// words share a stem with the fact (noid/lexical) or not (noid/paraphrase).
func splitNoID(n int, name string, res []scored, lexical map[string]bool) []Row {
	var lex, para []scored
	for _, r := range res {
		if r.q.Type != recalldata.TypeNoID {
			continue
		}
		if lexical[r.q.ID] {
			lex = append(lex, r)
		} else {
			para = append(para, r)
		}
	}
	var rows []Row
	if len(lex) > 0 {
		rows = append(rows, rowOf(n, name, "noid/lexical", lex))
	}
	if len(para) > 0 {
		rows = append(rows, rowOf(n, name, "noid/paraphrase", para))
	}
	return rows
}

// aggregate turns scored questions into one row per type plus "all".
func aggregate(n int, name string, res []scored) []Row {
	groups := map[string][]scored{}
	for _, r := range res {
		groups[r.q.Type] = append(groups[r.q.Type], r)
	}
	var rows []Row
	for _, t := range recalldata.QuestionTypes {
		if g := groups[t]; len(g) > 0 {
			rows = append(rows, rowOf(n, name, t, g))
		}
	}
	if len(rows) > 1 {
		rows = append(rows, rowOf(n, name, "all", res))
	}
	return rows
}

func rowOf(n int, name, typ string, g []scored) Row {
	r := Row{N: n, System: name, Type: typ, Questions: len(g), Timed: len(g)}
	lats := make([]time.Duration, len(g))
	for i, s := range g {
		lats[i] = s.latency
		if s.rank == 1 {
			r.Hit1++
		}
		if s.rank >= 1 && s.rank <= 3 {
			r.Hit3++
		}
		if s.rank >= 1 && s.rank <= 8 {
			r.Hit8++
		}
		if s.answer3 {
			r.Ans3++
		}
	}
	q := float64(len(g))
	r.Hit1, r.Hit3, r.Hit8, r.Ans3 = r.Hit1/q, r.Hit3/q, r.Hit8/q, r.Ans3/q
	slices.Sort(lats)
	r.P50 = ms(percentile(lats, 0.50))
	r.P95 = ms(percentile(lats, 0.95))
	return r
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted)) + 0.5)
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// checkImport compares the stored sessions with the generated ones.
func checkImport(d *recalldata.Dataset, stored []*funes.Session, failures []string) ImportCheck {
	ic := ImportCheck{Expected: len(d.Conversations), Failures: failures}
	byID := d.ByID()
	seen := map[[2]string]bool{}
	leakMarks := []string{"Draft answer that was regenerated", "<environment_context>", "<permissions instructions>", "# AGENTS.md instructions"}
	for _, s := range stored {
		k := [2]string{s.Harness, s.ID}
		c := byID[k]
		for _, t := range s.Turns {
			text := saidText(t) // plumbing is kept verbatim but never searched: no leak
			for _, mark := range leakMarks {
				if strings.Contains(text, mark) {
					ic.Leaks++
					if ic.Leaks <= 5 {
						ic.Failures = append(ic.Failures, fmt.Sprintf("leak: %s %s turn %d holds %q", s.Harness, s.ID, t.Seq, mark))
					}
				}
			}
		}
		if c == nil {
			ic.Extra++
			continue
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		ic.Found++
		var all strings.Builder
		ua := 0
		for _, t := range s.Turns {
			all.WriteString(t.Text())
			if (t.Role == funes.RoleUser || t.Role == funes.RoleAssistant) && hasText(t) {
				ua++
			}
		}
		if strings.Contains(all.String(), c.Fact.Answer) {
			ic.Answer++
		}
		if ua == len(c.Messages) {
			ic.Turns++
		} else if len(ic.Failures) < 20 {
			ic.Failures = append(ic.Failures, fmt.Sprintf("turns: %s %s has %d user/assistant text turns, generated %d", s.Harness, s.ID, ua, len(c.Messages)))
		}
	}
	if miss := ic.Expected - ic.Found; miss > 0 {
		var ids []string
		for k := range byID {
			if !seen[k] {
				ids = append(ids, k[0]+" "+k[1])
			}
		}
		sort.Strings(ids)
		ic.Failures = append(ic.Failures, fmt.Sprintf("missing %d conversations, e.g. %s", miss, ids[0]))
	}
	return ic
}

func hasText(t funes.Turn) bool {
	for _, b := range t.Blocks {
		if b.Type == funes.BlockText && strings.TrimSpace(plumbing.SaidText(t.Role, b.Type, b.ToolName, b.Text)) != "" {
			return true
		}
	}
	return false
}

// saidText is a turn's text as the index searches it: its plumbing left out.
func saidText(t funes.Turn) string {
	var parts []string
	for _, b := range t.Blocks {
		parts = append(parts, plumbing.SaidText(t.Role, b.Type, b.ToolName, b.Text))
	}
	return strings.Join(parts, "\n\n")
}

// printMisses prints every question whose conversation is not in the top
// three: the query, the expected conversation and what outranked it.
func printMisses(w io.Writer, n int, name string, res []scored, byID map[[2]string]*recalldata.Conversation) {
	for _, r := range res {
		if r.rank >= 1 && r.rank <= 3 {
			continue
		}
		q := r.q
		exp := byID[[2]string{q.Harness, q.SessionID}]
		rank := "not in top 8"
		if r.rank > 0 {
			rank = fmt.Sprintf("rank %d", r.rank)
		}
		fmt.Fprintf(w, "MISS N=%d %s %s [%s] %q (%s)\n", n, name, q.ID, q.Type, q.Text, rank)
		fmt.Fprintf(w, "  want %s %s %s | %s\n", q.Harness, short(q.SessionID), describe(exp), q.Answer)
		for i, h := range r.hits {
			if i >= 3 && i+1 != r.rank {
				continue
			}
			c := byID[[2]string{h.Harness, h.SessionID}]
			fmt.Fprintf(w, "  #%d  %s %s %s [%s] | %s\n", i+1, h.Harness, short(h.SessionID), describe(c), h.Score, clip(h.Text, 140))
		}
	}
}

func describe(c *recalldata.Conversation) string {
	if c == nil {
		return "(not generated)"
	}
	f := c.Fact
	return fmt.Sprintf("%s:%s %s %s@%s %s=%s", f.Kind, f.Topic, c.Started().Format("2006-01-02"), f.Machine, f.Site, f.Noun, f.Answer)
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
