package funes

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestRoundTripFunesJSONL(t *testing.T) {
	t.Parallel()
	s := conv("abc", HarnessCodex, "A title", "proj", day0, "hello", "world")
	s.Workdir = "/home/x/proj"
	s.Turns[1].Blocks = append(s.Turns[1].Blocks, Block{Type: BlockToolUse, Text: "ls -la", ToolName: "shell"})
	data, err := MarshalSession(s)
	if err != nil {
		t.Fatal(err)
	}
	// Unknown fields are ignored on read.
	data = bytes.Replace(data, []byte(`"seq":0,`), []byte(`"seq":0,"extra":{"x":1},`), 1)
	got, st, err := ReadSessions(bytes.NewReader(data))
	if err != nil || st.Bad != 0 || len(got) != 1 {
		t.Fatalf("read: %v %+v %d", err, st, len(got))
	}
	again, _ := MarshalSession(got[0])
	want, _ := MarshalSession(s)
	if !bytes.Equal(again, want) {
		t.Fatalf("round trip differs:\n%s\n%s", again, want)
	}
}

func TestReaderSkipsBadLines(t *testing.T) {
	t.Parallel()
	good, _ := MarshalSession(conv("ok", "funes", "", "", day0, "fine line"))
	cases := map[string]string{
		"truncated":   `{"session_id":"x","seq":1,"blocks":[{"block_type":"text","te`,
		"not json":    `hello there`,
		"wrong types": `{"session_id":5,"seq":"one"}`,
		"no id":       `{"seq":1,"role":"user","blocks":[]}`,
		"non-utf8":    "{\"session_id\":\"ok\",\"seq\":2,\"blocks\":[{\"text\":\"\xff\xfe\"}]}",
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			in := string(good) + bad + "\n"
			ss, st, err := ReadSessions(strings.NewReader(in))
			if err != nil || len(ss) != 1 || len(ss[0].Turns) != 1 || st.Bad != 1 {
				t.Fatalf("got %v, %d sessions, stats %+v", err, len(ss), st)
			}
		})
	}
	if _, _, err := ReadSessions(strings.NewReader("")); !errors.Is(err, ErrNoTurns) {
		t.Fatalf("empty input: %v", err)
	}
}

func FuzzReadSessions(f *testing.F) {
	good, _ := MarshalSession(conv("f", "funes", "t", "p", day0, "a", "b"))
	f.Add(good)
	f.Add([]byte(`{"session_id":"x"`))
	f.Add([]byte("\x00\x00\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, _, err := ReadSessions(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, s := range ss {
			if _, err := MarshalSession(s); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// conv makes a session whose turns alternate user and assistant, a minute apart from start.
func conv(id, harness, title, project string, start time.Time, texts ...string) *Session {
	s := &Session{ID: id, Harness: harness, Title: title, Project: project}
	for i, tx := range texts {
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		s.Turns = append(s.Turns, Turn{
			TurnUUID: fmt.Sprintf("%s-t%d", id, i), Seq: i, TS: start.Add(time.Duration(i) * time.Minute), Role: role,
			Blocks: []Block{{Type: BlockText, Text: tx}},
		})
	}
	return s
}

var day0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
