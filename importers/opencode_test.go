package importers

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

const (
	opencodeDB     = "opencode/1.18/opencode.db"
	opencodeMain   = "ses_dccd1a20efferOOKwOuUSXCwK2"
	opencodeSub    = "ses_dccd14224ffev10NAckpUvb0HO"
	opencodeV1Main = "opencode/1.1/storage/session/global/ses_dcccd1c9bffeYIW0Hao2f2gGRL.json"
	opencodeV1Sub  = "opencode/1.1/storage/session/global/ses_dcccd12c6ffebi57ncr2UinT3t.json"
)

// The one session of the samples seen three ways (the database, its
// export, and a 1.1 storage tree of the same run by 1.1): the prompt, two
// rounds of reasoning, words and a call with its result, the answer.
const ocMainSeq = "user:text assistant:thinking,text,tool_use tool:tool_result assistant:thinking,text,tool_use tool:tool_result assistant:text"
const ocSubSeq = "user:text assistant:thinking,text,tool_use tool:tool_result assistant:text"

// The real database opencode 1.18.33 wrote against the stand-in model:
// four sessions, one of them a sub-agent, every turn in order.
func TestOpenCodeRealDB(t *testing.T) {
	p := parseFile(t, ParseOpenCodeDB, testdata(opencodeDB))
	if p.err != nil || len(p.sessions) != 4 || len(p.skipped) > 0 {
		t.Fatalf("err %v, %d sessions, skipped %v", p.err, len(p.sessions), p.skipped)
	}
	main, sub := sessionByID(t, p.sessions, opencodeMain), sessionByID(t, p.sessions, opencodeSub)
	if got := roleSeq(main); got != ocMainSeq {
		t.Fatalf("main\n got %s\nwant %s", got, ocMainSeq)
	}
	if got := roleSeq(sub); got != ocSubSeq {
		t.Fatalf("sub-agent\n got %s\nwant %s", got, ocSubSeq)
	}
	if p.sessions[3].ID != opencodeSub {
		t.Errorf("the sub-agent comes after its parent, for its project: %s", p.sessions[3].ID)
	}
	if u := main.Turns[0]; u.TurnUUID != "msg_2332e610d001kCBWqRCf6WMj7Q" || u.Blocks[0].Text != `"Run echo, then ask an agent"` {
		t.Errorf("prompt %+v", u)
	}
	if r := main.Turns[2]; r.TurnUUID != "prt_2332ea755001e7kBP51LkwK2L7" || r.Blocks[0] != result("bash", "ireneo-stand-in\n") {
		t.Errorf("shell result %+v", r)
	}
	if main.Workdir != "/tmp/oc/proj" || main.Project != "proj" || main.Harness != funes.HarnessOpenCode {
		t.Errorf("workdir %q project %q harness %s", main.Workdir, main.Project, main.Harness)
	}
	if sub.Title != "Sub-agent: Find the word (@general subagent)" {
		t.Errorf("sub-agent title %q", sub.Title)
	}
	if r := main.Turns[4].Blocks[0]; !strings.HasPrefix(r.Text, `<task id="ses_dccd14224ffev10NAckpUvb0HO" state="completed">`) || r.ToolName != "task" {
		t.Errorf("task result %+v", r)
	}
}

// `opencode export` of the same two sessions makes the same conversations
// as the database.
func TestOpenCodeRealExport(t *testing.T) {
	db := parseFile(t, ParseOpenCodeDB, testdata(opencodeDB))
	for _, id := range []string{opencodeMain, opencodeSub} {
		p := parseFile(t, ParseOpenCodeExport, testdata("opencode", "1.18", "export-"+id+".json"))
		if p.err != nil || len(p.sessions) != 1 {
			t.Fatalf("%s: err %v, %d sessions", id, p.err, len(p.sessions))
		}
		a, _ := funes.MarshalSession(p.sessions[0])
		b, _ := funes.MarshalSession(sessionByID(t, db.sessions, id))
		if string(a) != string(b) {
			t.Errorf("%s: the export and the database differ:\n%s", id, lineDiff(string(b), string(a)))
		}
	}
}

// opencode 1.1's storage tree: the session file is the input, its
// messages, parts and project are read from the tree.
func TestOpenCodeRealStorage(t *testing.T) {
	p := parseFile(t, ParseOpenCodeStorage, testdata(opencodeV1Main))
	if p.err != nil || len(p.sessions) != 1 || roleSeq(p.sessions[0]) != ocMainSeq {
		t.Fatalf("main: err %v %v", p.err, p.sessions)
	}
	s := p.sessions[0]
	if s.Project != "proj" || s.Workdir != "/tmp/oc11/proj" || s.Title != "Stand-in title" {
		t.Errorf("project %q workdir %q title %q", s.Project, s.Workdir, s.Title)
	}
	p = parseFile(t, ParseOpenCodeStorage, testdata(opencodeV1Sub))
	if p.err != nil || len(p.sessions) != 1 || roleSeq(p.sessions[0]) != ocSubSeq || !strings.HasPrefix(p.sessions[0].Title, "Sub-agent: ") {
		t.Fatalf("sub-agent: err %v %v", p.err, p.sessions)
	}
	// Only session files are inputs: a walk of the tree finds the two
	// sessions and passes over the messages, parts and the rest.
	ins, err := Detect(context.Background(), testdata("opencode", "1.1"))
	if err != nil || len(ins) != 2 {
		t.Fatalf("detect: %v, %d inputs %+v", err, len(ins), ins)
	}
	for _, in := range ins {
		if in.Format != FormatOpenCodeV1 || in.Err != nil {
			t.Errorf("input %+v", in)
		}
	}
}

// copyDB copies the sample database into a fresh folder.
func copyDB(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(testdata(opencodeDB))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "opencode.db")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// openWriter opens a database as opencode does (WAL) and never
// checkpoints, so what it writes stays in the -wal.
func openWriter(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// A reply written while opencode runs sits in the -wal: it is read from
// there, while the writer still holds the database, and from a copy of the
// pair left behind as a crash leaves them; the main file alone lacks it.
func TestOpenCodeDataInWAL(t *testing.T) {
	path := copyDB(t)
	w := openWriter(t, path)
	for _, q := range []string{
		`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_zz1', 'ses_dccd39f82ffeMmYiUvFqBM0sBp', 1796154999000, 1796154999000, '{"role":"user","time":{"created":1796154999000}}')`,
		`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_zz1', 'msg_zz1', 'ses_dccd39f82ffeMmYiUvFqBM0sBp', 1796154999000, 1796154999000, '{"type":"text","text":"a question still in the WAL"}')`,
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no -wal: %v", err)
	}
	has := func(p parsed) bool {
		for _, s := range p.sessions {
			for _, tu := range s.Turns {
				if tu.TurnUUID == "msg_zz1" && tu.Blocks[0].Text == "a question still in the WAL" {
					return true
				}
			}
		}
		return false
	}
	if p := parseFile(t, ParseOpenCodeDB, path); p.err != nil || !has(p) {
		t.Fatalf("live: err %v, the new turn read: %v", p.err, has(p))
	}
	// The pair as an unclean exit leaves it, without the -shm.
	left := filepath.Join(t.TempDir(), "opencode.db")
	for _, sfx := range []string{"", "-wal"} {
		data, err := os.ReadFile(path + sfx)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(left+sfx, data, 0o644)
	}
	if p := parseFile(t, ParseOpenCodeDB, left); p.err != nil || !has(p) {
		t.Fatalf("left behind: err %v, the new turn read: %v", p.err, has(p))
	}
	os.Remove(left + "-wal")
	os.Remove(left + "-shm")
	if p := parseFile(t, ParseOpenCodeDB, left); p.err != nil || has(p) {
		t.Fatalf("main file alone: err %v, has the WAL's turn: %v", p.err, has(p))
	}
	// Reading changed nothing of opencode's: its writer goes on.
	if _, err := w.Exec(`UPDATE session SET title = 'still writable' WHERE id = 'ses_dccd39f82ffeMmYiUvFqBM0sBp'`); err != nil {
		t.Fatalf("the writer after Ireneo read: %v", err)
	}
}

// A revert hides what follows it; synthetic text is opencode's; an error
// ends a reply; a file part is a placeholder.
func TestOpenCodeShapes(t *testing.T) {
	path := copyDB(t)
	w := openWriter(t, path)
	for _, q := range []string{
		`UPDATE session SET revert = '{"messageID":"msg_2332ccda3001vx9rq7nCy9Q0I9"}' WHERE id = 'ses_dccd39f82ffeMmYiUvFqBM0sBp'`,
		`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2332c6695001iYVxU5Vfwd0mVz', 'msg_2332c666c001zE1yR4wRB1yZuf', 'ses_dccd39f82ffeMmYiUvFqBM0sBp', 1, 1, '{"type":"text","text":"Called the Read tool with the following input: {\"filePath\":\"k2.log\"}","synthetic":true}')`,
		`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2332c6695001iYVxU5Vfwd0mVzz', 'msg_2332c666c001zE1yR4wRB1yZuf', 'ses_dccd39f82ffeMmYiUvFqBM0sBp', 1, 1, '{"type":"file","mime":"image/png","filename":"k2.png","url":"data:image/png;base64,iVBOR"}')`,
		`UPDATE message SET data = json_set(data, '$.error', json('{"name":"APIError","data":{"message":"overloaded"}}')) WHERE id = 'msg_2332d8fe0001IWJzMPQeZpHYRZ'`,
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	p := parseFile(t, ParseOpenCodeDB, path)
	if p.err != nil {
		t.Fatal(p.err)
	}
	s := sessionByID(t, p.sessions, "ses_dccd39f82ffeMmYiUvFqBM0sBp")
	checkTurns(t, s, []want{
		{"msg_2332c666c001zE1yR4wRB1yZuf", "", "user", []funes.Block{txt(`"Run echo ireneo-stand-in and tell me what it printed"`),
			result("opencode", `Called the Read tool with the following input: {"filePath":"k2.log"}`), txt("[image: k2.png]")}},
		{"msg_2332c8c450015f1Ft64nmZr9q0", "", "assistant", []funes.Block{think("I will run a shell command."), txt("I'll run it now."), use("bash", `{"command":"echo ireneo-stand-in"}`)}},
		{"prt_2332cbc64001vXuAPxgYUsrjA8", "", "tool", []funes.Block{result("bash", "ireneo-stand-in\n")}},
	})
	e := sessionByID(t, p.sessions, "ses_dccd29d07ffe0IgBx109o7gc3O")
	// The reply that failed after its call ends, after the call's result,
	// with its error.
	if got := roleSeq(e); got != "user:text assistant:thinking,text,tool_use tool:tool_result assistant:text assistant:text" {
		t.Errorf("turns %s", got)
	}
	if t3 := e.Turns[3]; t3.TurnUUID != "msg_2332d8fe0001IWJzMPQeZpHYRZ-1" || t3.Blocks[0].Text != "Error: APIError: overloaded" {
		t.Errorf("error: %+v", t3)
	}
}

// Bad input: a damaged database fails whole, naming the file, with the
// memory unchanged; a row too large or not UTF-8 costs its session only,
// named; another app's SQLite file is not taken for opencode's.
func TestOpenCodeBadDB(t *testing.T) {
	ctx := context.Background()
	m := newMemory(t)
	if _, err := Run(ctx, m, []string{testdata(opencodeDB)}, Options{}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, m)

	damaged := copyDB(t)
	data, _ := os.ReadFile(damaged)
	for i := 4096; i < len(data); i++ {
		data[i] = 0xA5
	}
	os.WriteFile(damaged, data, 0o644)
	sum, err := Run(ctx, m, []string{damaged}, Options{})
	if err == nil || sum.Failed != 1 || !strings.Contains(sum.Failures[0].Path, "opencode.db") || !strings.Contains(sum.Failures[0].Reason, "damaged") {
		t.Fatalf("damaged: err %v, summary %+v", err, sum)
	}
	if snapshot(t, m) != before {
		t.Fatal("a damaged database changed the memory")
	}

	path := copyDB(t)
	w := openWriter(t, path)
	if _, err := w.Exec(`UPDATE part SET data = CAST(X'7b2274797065223a2274657874222c2274657874223a2263616699227d' AS BLOB) WHERE id = 'prt_2332c6695001iYVxU5Vfwd0mVu'`); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`UPDATE part SET data = '{"type":"text","text":"' || printf('%.*c', 5000, 'x') || '"}' WHERE id = 'prt_2332d64e1001XtJ9f5LWp7Yq4v' OR message_id = 'msg_2332d64da0010iaRwrXGe11IYV'`); err != nil {
		t.Fatal(err)
	}
	old := maxRowBytes
	maxRowBytes = 4000
	defer func() { maxRowBytes = old }()
	p := parseFile(t, ParseOpenCodeDB, path)
	if p.err != nil || len(p.sessions) != 2 || len(p.skipped) != 2 {
		t.Fatalf("bad rows: err %v, %d sessions, skipped %q", p.err, len(p.sessions), p.skipped)
	}
	if !strings.Contains(p.skipped[0], "session ses_dccd39f82ffeMmYiUvFqBM0sBp: part prt_2332c6695001iYVxU5Vfwd0mVu is not UTF-8") ||
		!strings.Contains(p.skipped[1], "larger than the 3 KiB a row may be") {
		t.Errorf("skipped %q", p.skipped)
	}

	other := filepath.Join(t.TempDir(), "other.db")
	odb, _ := sql.Open("sqlite", other)
	odb.Exec(`CREATE TABLE notes (id INTEGER, body TEXT)`)
	odb.Close()
	if _, err := Detect(ctx, other); err == nil {
		t.Errorf("another app's database was recognised")
	}
	if err := ParseOpenCodeDB(ctx, nil, other, Handler{Path: other, Session: func(*funes.Session) error { return nil }}); err == nil || !strings.Contains(err.Error(), "not an opencode database") {
		t.Errorf("another app's database: %v", err)
	}
}
