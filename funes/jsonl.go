package funes

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"
)

// TimeFormat is how a turn's ts is written: UTC at one fixed width, to the
// millisecond, so that string order is time order (RFC 3339 with trailing
// zeros dropped, "…56.39Z" beside "…56.391Z", is not).
const TimeFormat = "2006-01-02T15:04:05.000Z"

// MaxLineBytes caps one funes jsonl line. A longer line is skipped as bad:
// no real turn is that large, and the cap keeps memory bounded on hostile input.
const MaxLineBytes = 64 << 20

// line is the wire form of one funes jsonl turn.
type line struct {
	SessionID string  `json:"session_id"`
	TurnUUID  string  `json:"turn_uuid"`
	Seq       int     `json:"seq"`
	TS        string  `json:"ts"`
	Role      string  `json:"role"`
	Harness   string  `json:"harness"`
	Blocks    []Block `json:"blocks"`
	Title     string  `json:"title,omitempty"`
	Workdir   string  `json:"workdir,omitempty"`
	Project   string  `json:"project,omitempty"`
}

// MarshalSession encodes a session as funes jsonl, one turn a line.
func MarshalSession(s *Session) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteSession(&buf, s); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteSession writes a session as funes jsonl, one turn a line.
func WriteSession(w io.Writer, s *Session) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i, t := range s.Turns {
		l := line{
			SessionID: s.ID, TurnUUID: t.TurnUUID, Seq: t.Seq, Role: t.Role,
			Harness: s.Harness, Blocks: t.Blocks,
			Title: s.Title, Workdir: s.Workdir, Project: s.Project,
		}
		if l.TurnUUID == "" {
			l.TurnUUID = fmt.Sprintf("%s-%d", s.ID, t.Seq)
		}
		if l.Blocks == nil {
			l.Blocks = []Block{}
		}
		if !t.TS.IsZero() {
			l.TS = t.TS.UTC().Format(TimeFormat)
		}
		if err := enc.Encode(&l); err != nil {
			return fmt.Errorf("turn %d: %w", i, err)
		}
	}
	return nil
}

// ReadStats counts what a read skipped.
type ReadStats struct {
	Lines    int // non-blank lines seen
	Bad      int // lines skipped as unusable
	FirstBad string
}

func (st *ReadStats) bad(n int, why string) {
	st.Bad++
	if st.FirstBad == "" {
		st.FirstBad = fmt.Sprintf("line %d: %s", n, why)
	}
}

// ErrNoTurns says a funes jsonl input held no usable turn.
var ErrNoTurns = errors.New("no usable funes jsonl turns")

// ReadSessions decodes funes jsonl. Lines that are truncated, not JSON, of
// the wrong shape, lack a session_id or hold bytes that are not UTF-8 are
// skipped and counted; unknown fields are ignored. Turns are grouped by
// session, in the order sessions first appear, and sorted by seq.
func ReadSessions(r io.Reader) ([]*Session, ReadStats, error) {
	var st ReadStats
	br := bufio.NewReaderSize(r, 1<<16)
	byID := map[string]*Session{}
	var order []*Session
	for n := 1; ; n++ {
		raw, tooLong, err := readLine(br)
		if len(raw) > 0 || tooLong {
			st.Lines++
			switch {
			case tooLong:
				st.bad(n, fmt.Sprintf("longer than %d bytes", MaxLineBytes))
			case !utf8.Valid(raw):
				st.bad(n, "not UTF-8")
			default:
				s, t, why := decodeLine(raw)
				if why != "" {
					st.bad(n, why)
					break
				}
				key := s.Harness + "\x00" + s.ID
				cur := byID[key]
				if cur == nil {
					cur = s
					byID[key] = cur
					order = append(order, cur)
				} else {
					fillMeta(cur, s)
				}
				cur.Turns = append(cur.Turns, t)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, st, err
		}
	}
	for _, s := range order {
		sortTurns(s.Turns)
	}
	if len(order) == 0 {
		return nil, st, ErrNoTurns
	}
	return order, st, nil
}

func fillMeta(dst, src *Session) {
	if dst.Title == "" {
		dst.Title = src.Title
	}
	if dst.Workdir == "" {
		dst.Workdir = src.Workdir
	}
	if dst.Project == "" {
		dst.Project = src.Project
	}
}

// readLine returns one line without its newline. A line over MaxLineBytes is
// drained and reported as too long.
func readLine(br *bufio.Reader) ([]byte, bool, error) {
	var buf []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(buf)+len(frag) > MaxLineBytes {
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			return nil, true, err
		}
		buf = append(buf, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSpace(buf), false, err
	}
}

func decodeLine(raw []byte) (*Session, Turn, string) {
	var l line
	if err := json.Unmarshal(raw, &l); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, Turn{}, fmt.Sprintf("not JSON (offset %d: %v)", se.Offset, err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, Turn{}, "truncated JSON"
		}
		return nil, Turn{}, "wrong shape: " + err.Error()
	}
	if l.SessionID == "" {
		return nil, Turn{}, "missing session_id"
	}
	var ts time.Time
	if l.TS != "" {
		var err error
		if ts, err = time.Parse(time.RFC3339Nano, l.TS); err != nil {
			return nil, Turn{}, "bad ts: " + l.TS
		}
		ts = ts.UTC()
	}
	if l.Harness == "" {
		l.Harness = "funes"
	}
	for i := range l.Blocks {
		if l.Blocks[i].Type == "" {
			l.Blocks[i].Type = BlockText
		}
	}
	if l.TurnUUID == "" {
		l.TurnUUID = fmt.Sprintf("%s-%d", l.SessionID, l.Seq)
	}
	s := &Session{ID: l.SessionID, Harness: l.Harness, Title: l.Title, Workdir: l.Workdir, Project: l.Project}
	return s, Turn{TurnUUID: l.TurnUUID, Seq: l.Seq, TS: ts, Role: l.Role, Blocks: l.Blocks}, ""
}

func sortTurns(ts []Turn) {
	// Insertion sort: files are almost always already in order.
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Seq < ts[j-1].Seq; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}
