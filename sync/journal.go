package sync

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/redact"
)

// Journal operations: one line of a machine's journal.jsonl each.
const (
	opTag    = "tag"    // conv, project
	opUntag  = "untag"  // conv, project
	opStar   = "star"   // conv, on
	opRename = "rename" // from, to
	opForget = "forget" // conv
	opRedact = "redact" // conv, spans
)

// Entry is one of the person's choices, as a journal line holds it. A
// conversation is named by its hash only; a redaction by where the secret
// was and which rule found it, never by the secret or a hash of it (a hash
// of a short secret is found again by trying guesses).
type Entry struct {
	Clock
	Op      string `json:"op"`
	Conv    string `json:"conv,omitempty"`
	Project string `json:"project,omitempty"`
	On      bool   `json:"on,omitempty"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	Spans   []Span `json:"spans,omitempty"`

	machine string // whose journal it is in
}

// Span is one redacted secret: the text it was in (a turn's block, or a
// field of the conversation), its byte offsets there, the rule that found
// it, and the length of the whole text before the redaction, so a copy
// whose text differs is left alone rather than cut in the wrong place.
type Span struct {
	Turn  string `json:"turn,omitempty"` // the turn's uuid; "" for the conversation's own fields
	Seq   int    `json:"seq"`
	Block int    `json:"block"`
	Field string `json:"field,omitempty"`
	Rule  string `json:"rule"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	Len   int    `json:"len"`
}

// maxEntryBytes bounds one journal line: a scrub of a long conversation
// may name thousands of spans.
const maxEntryBytes = 4 << 20

// parseEntry reads one journal line, or says what is wrong with it.
func parseEntry(line []byte) (Entry, error) {
	var e Entry
	if len(line) > maxEntryBytes {
		return e, fmt.Errorf("entry of %d bytes (at most %d)", len(line), maxEntryBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&e); err != nil {
		return e, fmt.Errorf("not a journal entry: %w", err)
	}
	if e.T <= 0 || e.N < 0 {
		return e, fmt.Errorf("bad clock %s", e.Clock)
	}
	needConv := true
	switch e.Op {
	case opTag, opUntag:
		if err := checkProject(e.Project); err != nil {
			return e, err
		}
	case opStar, opForget:
	case opRename:
		needConv = false
		if err := checkProject(e.From); err != nil {
			return e, fmt.Errorf("rename from: %w", err)
		}
		if err := checkProject(e.To); err != nil {
			return e, fmt.Errorf("rename to: %w", err)
		}
	case opRedact:
		if len(e.Spans) == 0 {
			return e, errors.New("redaction without spans")
		}
		for _, s := range e.Spans {
			if err := s.check(); err != nil {
				return e, err
			}
		}
	default:
		return e, fmt.Errorf("unknown operation %q", e.Op)
	}
	if needConv != (e.Conv != "") || e.Conv != "" && !isHash(e.Conv) {
		return e, fmt.Errorf("bad conversation %q for %s", e.Conv, e.Op)
	}
	return e, nil
}

func isHash(s string) bool { return len(s) == 64 && hashIn.MatchString(s) }

// checkProject is memory's rule for a project name (not empty once
// trimmed, at most 200 characters), and valid UTF-8.
func checkProject(p string) error {
	switch t := strings.TrimSpace(p); {
	case t == "":
		return errors.New("empty project name")
	case len(t) > 200:
		return errors.New("project name longer than 200 characters")
	case t != p:
		return errors.New("project name with spaces around it")
	case !utf8.ValidString(p):
		return errors.New("project name is not UTF-8")
	}
	return nil
}

func (s Span) check() error {
	switch s.Field {
	case redact.FieldText, redact.FieldTitle, redact.FieldWorkdir, redact.FieldProject, redact.FieldToolName:
	default:
		return fmt.Errorf("redaction in unknown field %q", s.Field)
	}
	switch {
	case s.Start < 0 || s.End <= s.Start || s.End > s.Len || s.Len > 1<<30:
		return fmt.Errorf("redaction span %d-%d of %d bytes", s.Start, s.End, s.Len)
	case s.Rule == "" || len(s.Rule) > 200 || len(s.Turn) > 500:
		return errors.New("redaction with a bad rule or turn")
	case s.Block < -1 || s.Seq < -1 || (s.Turn == "") != (s.Block == -1):
		return errors.New("redaction with a bad place")
	}
	return nil
}

// readJournal reads the whole lines of a journal from offset on: a line
// the sync engine has delivered only in part, or that its writer is still
// writing, waits for the next read. It returns the entries, the offset
// after the last whole line, and how many lines were not entries (a line
// longer than maxEntryBytes among them, skipped unread).
func readJournal(path string, offset int64) ([]Entry, int64, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, offset, 0, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, offset, 0, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	var (
		out  []Entry
		bad  int
		line []byte
		long bool  // the line so far is too long: skipped
		n    int64 // bytes of the line so far
	)
	for {
		part, err := r.ReadSlice('\n')
		n += int64(len(part))
		if !long {
			line = append(line, part...)
			if len(line) > maxEntryBytes {
				long, line = true, line[:0]
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return out, offset, bad, nil // a partial last line, if any, waits
		case err != nil:
			return out, offset, bad, err
		}
		offset += n
		if long {
			bad++
		} else if t := bytes.TrimSpace(line); len(t) > 0 {
			if e, perr := parseEntry(t); perr == nil {
				out = append(out, e)
			} else {
				bad++
			}
		}
		line, long, n = line[:0], false, 0
	}
}

// journalWriter appends the local machine's entries to its journal, one
// process at a time (the lock), stamping each with the clock.
type journalWriter struct {
	memDir string
	cfg    Config
	now    func() time.Time
}

// appendEntries stamps entries and appends them to the journal; when the
// folder cannot be written (a removable disk not there), to the outbox in
// the memory directory, which the next pass moves into the journal.
func (w journalWriter) appendEntries(entries []Entry) ([]Entry, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	unlock, err := lockFile(filepath.Join(localDir(w.memDir), journalLockName))
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer unlock()
	c, err := loadClock(w.memDir)
	if err != nil {
		return nil, err
	}
	now := w.now().UnixMilli()
	var buf bytes.Buffer
	for i := range entries {
		c = c.next(now)
		entries[i].Clock = c
		entries[i].machine = w.cfg.Machine
		line, err := json.Marshal(entries[i])
		if err != nil {
			return nil, err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if err := saveClock(w.memDir, c); err != nil {
		return nil, err
	}
	err = errFolderAway
	if folderThere(w.cfg.Folder) {
		err = appendLines(journalPath(w.cfg.Folder, w.cfg.Machine), buf.Bytes())
	}
	if err != nil {
		if oerr := appendLines(filepath.Join(localDir(w.memDir), outboxName), buf.Bytes()); oerr != nil {
			return nil, fmt.Errorf("journal: %w (and the outbox: %v)", err, oerr)
		}
	}
	return entries, nil
}

// flushOutbox moves what the outbox holds into the journal.
func (w journalWriter) flushOutbox() error {
	unlock, err := lockFile(filepath.Join(localDir(w.memDir), journalLockName))
	if err != nil {
		return err
	}
	defer unlock()
	p := filepath.Join(localDir(w.memDir), outboxName)
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) || err == nil && len(data) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		data = nil
	}
	if len(data) > 0 {
		if !folderThere(w.cfg.Folder) {
			return errFolderAway
		}
		if err := appendLines(journalPath(w.cfg.Folder, w.cfg.Machine), data); err != nil {
			return err
		}
	}
	return os.Remove(p)
}

var errFolderAway = errors.New("the sync folder is not there")

// folderThere says whether the sync folder exists: one on a disk not
// attached must not be made again on the disk below it.
func folderThere(folder string) bool {
	st, err := os.Stat(folder)
	return err == nil && st.IsDir()
}

// appendLines appends whole lines to path, first ending a line a crash
// left without its newline (it then reads as one bad line, and the next
// entries stay whole), and makes them durable.
func appendLines(path string, lines []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			lines = append([]byte{'\n'}, lines...)
		}
	}
	if _, err := f.Write(lines); err != nil {
		return err
	}
	return f.Sync()
}
