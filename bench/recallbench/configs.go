package recallbench

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/recall"
)

// Config is one named recall configuration: Apply edits the options of
// every recall the benchmark makes with it (nil leaves them as they are,
// the pipeline Ireneo ships).
type Config struct {
	Name  string
	Apply func(*recall.Options)
}

// DefaultName names the shipped pipeline in reports.
const DefaultName = "ireneo"

// Default is the shipped pipeline.
func Default() Config { return Config{Name: DefaultName} }

// tuned is a configuration that starts from base and edits its tuning.
func tuned(name string, base recall.Tuning, edit func(*recall.Tuning)) Config {
	return Config{Name: name, Apply: func(o *recall.Options) {
		t := base
		if edit != nil {
			edit(&t)
		}
		o.Tuning = &t
	}}
}

// stage is one pipeline stage the ablations switch: on sets it as shipped
// (from DefaultTuning), off takes it out.
type stage struct {
	name    string
	on, off func(t *recall.Tuning)
}

var stages = []stage{
	{"ids", // identifier-aware tokenizing: the identifier column
		func(t *recall.Tuning) { t.NoIDs = false; t.IDWeight = 2 },
		func(t *recall.Tuning) { t.NoIDs = true }},
	{"stopwords", // stopwords and question words dropped from the query
		func(t *recall.Tuning) { t.NoStopwords = false },
		func(t *recall.Tuning) { t.NoStopwords = true }},
	{"ctx", // the ±2 turns around a turn added to its score (dropped: see README)
		func(t *recall.Tuning) { t.CtxWeight, t.CtxTurns = 0.1, 2 },
		func(t *recall.Tuning) { t.CtxWeight = 0 }},
	{"date", // the chunk's date as words
		func(t *recall.Tuning) { t.DateWeight = 2 },
		func(t *recall.Tuning) { t.DateWeight = 0 }},
	{"fields", // the title, weighted against the body
		func(t *recall.Tuning) { t.TitleWeight = 0.1 },
		func(t *recall.Tuning) { t.TitleWeight = 0 }},
	{"speaker", // the turns of the speaker a question is about favoured (dropped: see README)
		func(t *recall.Tuning) { t.SpeakerWeight = 0.3 },
		func(t *recall.Tuning) { t.SpeakerWeight = 0 }},
	{"firstperson", // a person's own turns favoured for a question about their life ("my", "I"), not to the assistant
		func(t *recall.Tuning) { t.FirstPerson = 1 },
		func(t *recall.Tuning) { t.FirstPerson = 0 }},
	{"session", // a conversation's other matching turns lift its turn
		func(t *recall.Tuning) { t.SessionWeight, t.SessionTurns = 0.5, 2 },
		func(t *recall.Tuning) { t.SessionWeight = 0 }},
	{"stops", // the question's stopwords break near ties
		func(t *recall.Tuning) { t.StopWeight = 0.2 },
		func(t *recall.Tuning) { t.StopWeight = 0 }},
	{"stopadd", // the IDF of the question's stopwords a turn holds added to its BM25, for short questions
		func(t *recall.Tuning) { t.StopAdd, t.StopMaxTerms = 2, 9 },
		func(t *recall.Tuning) { t.StopAdd = 0 }},
	{"turnlen", // a turn cut in several chunks scored as one long document (dropped: see README)
		func(t *recall.Tuning) { t.TurnLenPower = 0.3 },
		func(t *recall.Tuning) { t.TurnLenPower = 0 }},
	{"vectors", // static word vectors (wordvec) fused into the best candidates
		func(t *recall.Tuning) { t.VectorWeight = 0.5 },
		func(t *recall.Tuning) { t.VectorWeight = 0 }},
	{"coverage", // the IDF-weighted share of the query a chunk covers, in the score
		func(t *recall.Tuning) { t.CoverPower, t.CoverMaxTerms, t.CoverMaxPlain = 2, 12, 10 },
		func(t *recall.Tuning) { t.CoverPower = 0 }},
	{"ties", // newest first among equals, for a question naming an identifier (dropped: see README)
		func(t *recall.Tuning) { t.TieShare = 0.7 },
		func(t *recall.Tuning) { t.TieShare = 0 }},
	{"latest", // newest first among equals, for a question asking for the latest
		func(t *recall.Tuning) { t.TieShareRecent = 0.4 },
		func(t *recall.Tuning) { t.TieShareRecent = 0 }},
	{"neighbors",
		func(t *recall.Tuning) { t.NoNeighbors = false },
		func(t *recall.Tuning) { t.NoNeighbors = true }},
	{"diversity", // a conversation's further hits discounted
		func(t *recall.Tuning) { t.SameSession = 0.85 },
		func(t *recall.Tuning) { t.SameSession = 1 }},
	{"group", // a conversation's near-equal turns shown together after its first
		func(t *recall.Tuning) { t.GroupTurns, t.GroupShare = 3, 0.7 },
		func(t *recall.Tuning) { t.GroupTurns = 0 }},
	{"exchange", // a message's reply (or the message) discounted once the other is a hit
		func(t *recall.Tuning) { t.SameExchange = 0.5 },
		func(t *recall.Tuning) { t.SameExchange = 0 }},
	{"fold", // one hit per message and its reply, the other shown as its neighbour
		func(t *recall.Tuning) { t.OneHitPerExchange = true },
		func(t *recall.Tuning) { t.OneHitPerExchange = false }},
	{"k1", // the engine's k1 at 2 instead of FTS5's 1.2
		func(t *recall.Tuning) { t.BM25 = withK1(t.BM25, 2) },
		func(t *recall.Tuning) { t.BM25 = withK1(t.BM25, 1.2) }},
	{"recency",
		func(t *recall.Tuning) { t.HalfLifeDays, t.RecencyWeight = 180, 0.05 },
		func(t *recall.Tuning) { t.HalfLifeDays = 0 }},
	{"echo", // a turn of nothing but the query's words ranks below what answers it; copies across conversations shown once
		func(t *recall.Tuning) { t.Echo, t.FoldCopies = 0.5, true },
		func(t *recall.Tuning) { t.Echo, t.FoldCopies = 0, false }},
	{"answers", // a first hit that asks something brings its answer right after it
		func(t *recall.Tuning) { t.AnswerFollows = true },
		func(t *recall.Tuning) { t.AnswerFollows = false }},
	{"dates", // the question's dates and order, against each turn's time
		func(t *recall.Tuning) { t.Dates, t.SpanWeight, t.WhenWeight = true, 1000, 0.5 },
		func(t *recall.Tuning) { t.Dates = false }},
	{"forms", // a verb's irregular forms searched beside it ("eat", "ate")
		func(t *recall.Tuning) { t.VerbForms = true },
		func(t *recall.Tuning) { t.VerbForms = false }},
}

// withK1 is p (nil: the engine's defaults) with k1 set.
func withK1(p *engine.Params, k1 float64) *engine.Params {
	q := engine.DefaultParams()
	if p != nil {
		q = *p
	}
	q.K1 = k1
	return &q
}

// bareTuning is the pipeline with every stage off: BM25 over the body.
func bareTuning() recall.Tuning {
	t := recall.DefaultTuning
	for _, s := range stages {
		s.off(&t)
	}
	return t
}

// Ablations are the named configurations -ablation chooses from: the
// shipped pipeline; "bare", every stage off; "+STAGE", bare with one stage
// on; "-STAGE", the shipped pipeline with one stage off; "shipped+STAGE",
// the shipped pipeline with a stage it leaves out put back.
func Ablations() []Config {
	out := []Config{Default(), tuned("bare", bareTuning(), nil)}
	for _, s := range stages {
		out = append(out, tuned("+"+s.name, bareTuning(), s.on))
	}
	for _, s := range stages {
		out = append(out, tuned("-"+s.name, recall.DefaultTuning, s.off))
	}
	for _, s := range stages {
		out = append(out, tuned("shipped+"+s.name, recall.DefaultTuning, s.on))
	}
	return out
}

// ParseTuning reads ad-hoc configurations for tuning runs:
// "NAME:Field=value,Field=value NAME2:…", each starting from the shipped
// tuning and setting fields of recall.Tuning by name.
func ParseTuning(spec string) ([]Config, error) {
	var out []Config
	for _, item := range strings.Fields(spec) {
		name, sets, ok := strings.Cut(item, ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("tuning %q: want NAME:Field=value,…", item)
		}
		t := recall.DefaultTuning
		v := reflect.ValueOf(&t).Elem()
		for _, kv := range strings.Split(sets, ",") {
			k, val, _ := strings.Cut(kv, "=")
			if ok, err := setBM25(&t, k, val); ok {
				if err != nil {
					return nil, fmt.Errorf("tuning %q: %w", item, err)
				}
				continue
			}
			f := v.FieldByName(k)
			if !f.IsValid() {
				return nil, fmt.Errorf("tuning %q: recall.Tuning has no field %q", item, k)
			}
			switch f.Kind() {
			case reflect.Float64:
				x, err := strconv.ParseFloat(val, 64)
				if err != nil {
					return nil, fmt.Errorf("tuning %q: %s: %w", item, k, err)
				}
				f.SetFloat(x)
			case reflect.Int:
				x, err := strconv.Atoi(val)
				if err != nil {
					return nil, fmt.Errorf("tuning %q: %s: %w", item, k, err)
				}
				f.SetInt(int64(x))
			case reflect.Bool:
				f.SetBool(val == "true" || val == "1")
			}
		}
		out = append(out, tuned(name, t, nil))
	}
	return out, nil
}

// bm25Fields names the engine's fields for -tune's B<Field> knobs.
var bm25Fields = map[string]engine.Field{"BBody": engine.Body, "BTitle": engine.Title, "BIDs": engine.IDs, "BDate": engine.Date}

// setBM25 sets the engine's K1, Passage or a field's b (BBody, BTitle, BIDs, BDate)
// in t's BM25 parameters; it reports whether k names one of them.
func setBM25(t *recall.Tuning, k, val string) (bool, error) {
	f, isB := bm25Fields[k]
	if k != "K1" && k != "Passage" && !isB {
		return false, nil
	}
	x, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return true, fmt.Errorf("%s: %w", k, err)
	}
	p := engine.DefaultParams()
	if t.BM25 != nil {
		p = *t.BM25
	}
	switch {
	case isB:
		p.Fields[f].B = x
	case k == "Passage":
		p.Passage = x
	default:
		p.K1 = x
	}
	t.BM25 = &p
	return true, nil
}

// SelectConfigs picks configurations by comma-separated names; "all" picks
// every one, "" the shipped pipeline alone.
func SelectConfigs(names string) ([]Config, error) {
	all := Ablations()
	if names == "" {
		return all[:1], nil
	}
	if names == "all" {
		return all, nil
	}
	var out []Config
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		found := false
		for _, c := range all {
			if c.Name == n {
				out = append(out, c)
				found = true
				break
			}
		}
		if !found {
			var known []string
			for _, c := range all {
				known = append(known, c.Name)
			}
			return nil, fmt.Errorf("unknown configuration %q (known: %s, all)", n, strings.Join(known, ", "))
		}
	}
	return out, nil
}
