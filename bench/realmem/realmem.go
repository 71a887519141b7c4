// Package realmem loads the RealMem benchmark (../shared/datasets/realmem,
// Apache-2.0) for the recall bench: each persona's history as Ireneo
// sessions, and its in-dialogue queries with their evidence: the sessions
// (memory_session_uuids) and, within them, the turns the memory points came
// from (memory_used matched to extracted_memory[].source_turn).
// The files are read where they lie at run time; nothing is copied into the
// repository.
package realmem

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// Harness is what the sessions are stored as: RealMem histories are
// user–assistant chats.
const Harness = funes.HarnessChatGPT

// DefaultDir is where the data sets live, relative to a worktree root.
const DefaultDir = "../shared/datasets/realmem"

// ErrNoData says the data set folder is absent; tests skip on it.
var ErrNoData = errors.New("realmem: data set not found")

// Persona is one person's history and the queries asked inside it.
type Persona struct {
	Name     string
	Sessions []*funes.Session // in file (chronological) order
	Queries  []Query
}

// Query is one in-dialogue query turn.
type Query struct {
	ID       string
	Type     string // Dynamic Incremental, Implicit Preference, Dynamic Updating, Temporal-reasoning
	Text     string
	Session  string    // the session it was asked in
	Before   time.Time // only sessions started before this may answer it
	Evidence []string  // session ids holding what it needs
	// EvidenceTurns are the turn uuids holding what it needs: the turns
	// its memory points were extracted from.
	EvidenceTurns []string
}

type dialogueTurn struct {
	Speaker  string   `json:"speaker"`
	Content  string   `json:"content"`
	IsQuery  bool     `json:"is_query"`
	QueryID  *string  `json:"query_id"`
	Category string   `json:"category_name"`
	Memory   []string `json:"memory_session_uuids"`
	Used     []struct {
		Session string          `json:"session_uuid"`
		Content json.RawMessage `json:"content"`
	} `json:"memory_used"`
}

type file struct {
	Meta struct {
		Person string `json:"person_name"`
	} `json:"_metadata"`
	Dialogues []struct {
		Identifier string `json:"session_identifier"`
		UUID       string `json:"session_uuid"`
		Time       string `json:"current_time"`
		Extracted  []struct {
			Content    json.RawMessage `json:"content"`
			SourceTurn int             `json:"source_turn"`
			Snapshot   string          `json:"source_content_snapshot"`
		} `json:"extracted_memory"`
		Turns []dialogueTurn `json:"dialogue_turns"`
	} `json:"dialogues"`
}

// Load reads every persona file in dir, sorted by name.
func Load(dir string) ([]*Persona, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*_dialogues_*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w in %s", ErrNoData, dir)
	}
	sort.Strings(paths)
	var out []*Persona
	for _, p := range paths {
		per, err := LoadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, per)
	}
	return out, nil
}

// LoadFile reads one persona file. File order is the history's order (the
// evidence of a query always comes earlier in the file, while three
// personas' dates sometimes step back), so sessions get times that follow
// it: a session starts at midnight UTC of its date, or a minute after the
// previous session if that is later, and its turns follow a second apart.
func LoadFile(path string) (*Persona, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("realmem %s: %w", path, err)
	}
	per := &Persona{Name: f.Meta.Person}
	if per.Name == "" {
		per.Name = strings.SplitN(filepath.Base(path), "_dialogues", 2)[0]
	}
	seen := map[string]bool{}
	// Where each session's memory points came from: session, canonical
	// content → turn uuid.
	source := map[[2]string]string{}
	for _, d := range f.Dialogues {
		for _, e := range d.Extracted {
			source[[2]string{d.UUID, canonical(e.Content)}] = fmt.Sprintf("%s-%d", d.UUID, sourceTurn(d.Turns, e.SourceTurn, e.Snapshot))
		}
	}
	var prev time.Time
	for i, d := range f.Dialogues {
		day, err := time.Parse("2006-01-02", strings.Fields(d.Time + " ")[0])
		if err != nil {
			return nil, fmt.Errorf("realmem %s: session %s: date %q: %w", path, d.UUID, d.Time, err)
		}
		if d.UUID == "" || seen[d.UUID] {
			return nil, fmt.Errorf("realmem %s: session %d: missing or repeated uuid %q", path, i, d.UUID)
		}
		seen[d.UUID] = true
		start := day
		if !prev.IsZero() && !start.After(prev) {
			start = prev.Add(time.Minute)
		}
		prev = start
		s := &funes.Session{ID: d.UUID, Harness: Harness}
		for j, t := range d.Turns {
			role := funes.RoleUser
			if t.Speaker == "Assistant" {
				role = funes.RoleAssistant
			}
			s.Turns = append(s.Turns, funes.Turn{
				TurnUUID: fmt.Sprintf("%s-%d", d.UUID, j), Seq: j, TS: start.Add(time.Duration(j) * time.Second),
				Role: role, Blocks: []funes.Block{{Type: funes.BlockText, Text: t.Content}},
			})
			if !t.IsQuery {
				continue
			}
			q := Query{Type: t.Category, Text: t.Content, Session: d.UUID, Before: start}
			if t.QueryID != nil {
				q.ID = *t.QueryID
			}
			// The assistant turn answering the query names the evidence.
			if j+1 < len(d.Turns) {
				q.Evidence = dedupe(d.Turns[j+1].Memory)
				var turns []string
				for _, u := range d.Turns[j+1].Used {
					if t, ok := source[[2]string{u.Session, canonical(u.Content)}]; ok {
						turns = append(turns, t)
					}
				}
				q.EvidenceTurns = dedupe(turns)
			}
			if len(q.Evidence) > 0 && strings.TrimSpace(q.Text) != "" {
				per.Queries = append(per.Queries, q)
			}
		}
		per.Sessions = append(per.Sessions, s)
	}
	return per, nil
}

// sourceTurn finds the dialogue turn a memory point came from. source_turn
// is mostly 1-based and sometimes 0-based, so the snapshot of the turn's
// text decides: the turn at either reading whose text starts as the
// snapshot does, else any turn of the session that does, else the 1-based
// reading.
func sourceTurn(turns []dialogueTurn, st int, snapshot string) int {
	const n = 60
	starts := func(i int) bool {
		if i < 0 || i >= len(turns) || snapshot == "" {
			return false
		}
		c, sn := turns[i].Content, snapshot
		c, sn = c[:min(len(c), n)], sn[:min(len(sn), n)]
		return strings.HasPrefix(c, sn) || strings.HasPrefix(sn, c) && c != ""
	}
	for _, i := range []int{st - 1, st} {
		if starts(i) {
			return i
		}
	}
	for i := range turns {
		if starts(i) {
			return i
		}
	}
	return max(0, min(st-1, len(turns)-1))
}

// canonical is a JSON value re-encoded (object keys sorted), so a memory
// point quoted in memory_used meets the one in extracted_memory.
func canonical(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func dedupe(ids []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// RecallAt is the share of the evidence sessions found among the sessions
// of the first k hits (ranked holds each hit's session id).
func RecallAt(evidence, ranked []string, k int) float64 {
	if len(evidence) == 0 {
		return 0
	}
	top := map[string]bool{}
	for i := 0; i < k && i < len(ranked); i++ {
		top[ranked[i]] = true
	}
	got := 0
	for _, e := range evidence {
		if top[e] {
			got++
		}
	}
	return float64(got) / float64(len(evidence))
}
