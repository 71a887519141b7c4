// Package rhelm loads RHELM (../shared/datasets/rhelm, MIT) for the recall
// bench: each person's year of dated sessions with an assistant as Ireneo
// sessions (one memory per person), and the questions whose evidence is
// all conversation turns, with that turn-level evidence. The files are read
// where they lie at run time; nothing is copied into the repository.
package rhelm

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// Harness is what the sessions are stored as: RHELM histories are
// user–assistant chats.
const Harness = funes.HarnessChatGPT

// DefaultDir is where the data set lives, relative to a worktree root.
const DefaultDir = "../shared/datasets/rhelm"

// ErrNoData says the data set folder is absent; tests skip on it.
var ErrNoData = errors.New("rhelm: data set not found")

// Person is one person's history and the questions asked of it.
type Person struct {
	Name      string
	Sessions  []*funes.Session // by date
	Questions []Question
	// Unfindable are evidence turns that name no turn of the sessions
	// (upstream has one: turn 18 of a 14-turn session); they stay in their
	// question's evidence, a miss for every system.
	Unfindable []Turn
}

// Question is one question with turn-level evidence.
type Question struct {
	ID     string
	Type   string // fact, temporal, aggregation, hallucination, misleading, mixed
	Text   string
	Answer string
	// Before: only sessions started before this (the question's date, at
	// midnight UTC) may answer it.
	Before time.Time
	// Evidence are the turns it rests on. A turn is a user message and the
	// assistant's reply: it counts as found when either is hit.
	Evidence []Turn
}

// Turn names one evidence turn: its session (the session's date) and its
// 1-based number there.
type Turn struct {
	Session string
	N       int
}

// SessionID is the id a dated session is stored under.
func SessionID(date string) string { return "rhelm-" + date }

// MessageUUIDs are the turn uuids of a RHELM turn's two messages.
func (t Turn) MessageUUIDs() [2]string {
	p := t.Session + ":" + strconv.Itoa(t.N)
	return [2]string{p + ":user", p + ":assistant"}
}

type sessionFile struct {
	Character    string `json:"character"`
	Date         string `json:"date"`
	Conversation []struct {
		Turn      int    `json:"turn"`
		Timestamp string `json:"timestamp"`
		User      string `json:"user"`
		Assistant string `json:"assistant"`
	} `json:"conversation"`
}

type qaLine struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Answer   any      `json:"answer"`
	Date     string   `json:"question_date"`
	Type     string   `json:"question_type"`
	Evidence []string `json:"supporting_evidence"`
}

// turnRef is one piece of evidence that is a conversation turn.
var turnRef = regexp.MustCompile(`^(\d{4}-\d\d-\d\d):(\d+)$`)

// Load reads every person under dir, sorted by name.
func Load(dir string) ([]*Person, error) {
	names, err := filepath.Glob(filepath.Join(dir, "conversations", "*"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w in %s", ErrNoData, dir)
	}
	sort.Strings(names)
	var out []*Person
	for _, n := range names {
		p, err := LoadPerson(dir, filepath.Base(n))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// LoadPerson reads one person's sessions and questions. A session becomes
// one conversation whose turns are its messages in order, each at the turn's
// timestamp (UTC); a question is kept when every piece of its evidence is a
// conversation turn (DATE:N), not an email or an attachment.
func LoadPerson(dir, name string) (*Person, error) {
	p := &Person{Name: name}
	paths, err := filepath.Glob(filepath.Join(dir, "conversations", name, "conversation_*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	turns := map[string]int{} // session date → its turns
	for _, path := range paths {
		s, n, err := loadSession(path)
		if err != nil {
			return nil, err
		}
		if _, dup := turns[s.ID]; dup {
			return nil, fmt.Errorf("rhelm %s: a second session dated %s", path, s.ID)
		}
		turns[strings.TrimPrefix(s.ID, "rhelm-")] = n
		p.Sessions = append(p.Sessions, s)
	}
	qa := filepath.Join(dir, "QA_final", "low_score_qa_"+name+"_all_validated.jsonl")
	f, err := os.Open(qa)
	if err != nil {
		return nil, fmt.Errorf("rhelm %s: %w", name, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var l qaLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("rhelm %s:%d: %w", qa, line, err)
		}
		before, err := time.Parse("2006-01-02", l.Date)
		if err != nil {
			return nil, fmt.Errorf("rhelm %s:%d: question_date %q: %w", qa, line, l.Date, err)
		}
		q := Question{ID: l.ID, Type: l.Type, Text: l.Question, Answer: fmt.Sprint(l.Answer), Before: before}
		all := len(l.Evidence) > 0
		for _, e := range l.Evidence {
			m := turnRef.FindStringSubmatch(strings.TrimSpace(e))
			if m == nil {
				all = false // an email or an attachment: not in a chat
				break
			}
			n, _ := strconv.Atoi(m[2])
			t := Turn{Session: m[1], N: n}
			if nt, ok := turns[m[1]]; !ok || n < 1 || n > nt {
				p.Unfindable = append(p.Unfindable, t)
			}
			q.Evidence = append(q.Evidence, t)
		}
		if all && strings.TrimSpace(q.Text) != "" {
			p.Questions = append(p.Questions, q)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("rhelm %s: %w", qa, err)
	}
	return p, nil
}

func loadSession(path string) (*funes.Session, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	var f sessionFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, 0, fmt.Errorf("rhelm %s: %w", path, err)
	}
	day, err := time.Parse("2006-01-02", f.Date)
	if err != nil {
		return nil, 0, fmt.Errorf("rhelm %s: date %q: %w", path, f.Date, err)
	}
	s := &funes.Session{ID: SessionID(f.Date), Harness: Harness}
	prev := day
	for i, t := range f.Conversation {
		if t.Turn != i+1 {
			return nil, 0, fmt.Errorf("rhelm %s: turn %d is numbered %d", path, i+1, t.Turn)
		}
		ts, err := time.Parse("2006-01-02T15:04:05", t.Timestamp)
		if err != nil || ts.Before(prev) {
			ts = prev // an odd or backward timestamp keeps the order of the file
		}
		prev = ts
		ref := Turn{Session: f.Date, N: t.Turn}.MessageUUIDs()
		for j, msg := range [2]struct{ role, text string }{{funes.RoleUser, t.User}, {funes.RoleAssistant, t.Assistant}} {
			if strings.TrimSpace(msg.text) == "" {
				continue
			}
			s.Turns = append(s.Turns, funes.Turn{
				TurnUUID: ref[j], Seq: len(s.Turns), TS: ts.Add(time.Duration(j) * time.Second),
				Role: msg.role, Blocks: []funes.Block{{Type: funes.BlockText, Text: msg.text}},
			})
		}
	}
	return s, len(f.Conversation), nil
}
