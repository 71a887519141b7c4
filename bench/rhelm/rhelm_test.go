package rhelm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	ps, err := Load("../../" + DefaultDir)
	if errors.Is(err, ErrNoData) {
		ps, err = Load("../../../" + DefaultDir) // a worktree under wt/
	}
	if errors.Is(err, ErrNoData) {
		t.Skip("RHELM is not in ../shared")
	}
	if err != nil {
		t.Fatal(err)
	}
	sessions, turns, questions, late, unfindable := 0, 0, 0, 0, 0
	types := map[string]int{}
	for _, p := range ps {
		sessions += len(p.Sessions)
		unfindable += len(p.Unfindable)
		for _, s := range p.Sessions {
			turns += len(s.Turns)
		}
		for _, q := range p.Questions {
			questions++
			types[q.Type]++
			for _, e := range q.Evidence {
				if e.Session >= q.Before.Format("2006-01-02") {
					late++
				}
			}
		}
	}
	t.Logf("%d people, %d sessions, %d messages, %d questions %v; %d evidence turns on or after their question's date, %d name no turn", len(ps), sessions, turns, questions, types, late, unfindable)
	if unfindable > 1 {
		t.Errorf("%d evidence turns name no turn of their sessions; upstream has one", unfindable)
	}
	if len(ps) != 10 || sessions != 629 {
		t.Errorf("%d people and %d sessions; README says 10 and 629", len(ps), sessions)
	}
	if questions != 862 {
		t.Errorf("%d questions with all-turn evidence; README says 862", questions)
	}
	if late > 20 {
		t.Errorf("%d evidence turns on or after their question's date", late)
	}
}

// Bad input names its file and the problem.
func TestLoadBadInput(t *testing.T) {
	dir := t.TempDir()
	conv := filepath.Join(dir, "conversations", "Ann")
	os.MkdirAll(conv, 0o700)
	os.MkdirAll(filepath.Join(dir, "QA_final"), 0o700)
	qa := filepath.Join(dir, "QA_final", "low_score_qa_Ann_all_validated.jsonl")
	os.WriteFile(filepath.Join(conv, "conversation_2024_01_02.json"),
		[]byte(`{"character":"Ann","date":"2024-01-02","conversation":[{"turn":1,"timestamp":"2024-01-02T08:00:00","user":"my cat is Tom","assistant":"nice"}]}`), 0o600)
	for _, c := range []struct{ qa, want string }{
		{`{"id":"q","question":"cat?","question_date":"soon","question_type":"fact","supporting_evidence":["2024-01-02:1"]}`, "question_date"},
		{`{not json`, "low_score_qa_Ann_all_validated.jsonl:1"},
	} {
		os.WriteFile(qa, []byte(c.qa+"\n"), 0o600)
		if _, err := LoadPerson(dir, "Ann"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.qa, err, c.want)
		}
	}
	os.WriteFile(qa, []byte(`{"id":"q","question":"cat?","answer":"Tom","question_date":"2024-02-01","question_type":"fact","supporting_evidence":["2024-01-02:1"]}`+"\n"+
		`{"id":"r","question":"email?","question_date":"2024-02-01","question_type":"fact","supporting_evidence":["2024-01-02:1","notes.md:Intro"]}`+"\n"), 0o600)
	p, err := LoadPerson(dir, "Ann")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Questions) != 1 || p.Questions[0].Answer != "Tom" || len(p.Sessions) != 1 || len(p.Sessions[0].Turns) != 2 {
		t.Fatalf("want one question (the one citing an attachment left out) and one session of two messages: %+v", p)
	}
	if got := p.Sessions[0].Turns[1].TurnUUID; got != p.Questions[0].Evidence[0].MessageUUIDs()[1] {
		t.Errorf("assistant message uuid %q does not match the evidence's", got)
	}
}
