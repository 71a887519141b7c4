package importers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/funes"
)

// maxConversationBytes caps one conversation of a JSON export, so a
// hostile or broken file (one endless string) is refused holding a few
// hundred MB, never gigabytes. The decoder holds one conversation at a time
// in a buffer that doubles (to about 2^k KiB); a cap a little under a power
// of two lets it refuse before the last doubling, at about 1.5× the cap
// rather than 3×. The largest real conversations, long chats full of
// browsing metadata, are tens of MB.
var maxConversationBytes int64 = 120 << 20

var errTooLarge = errors.New("too large")

// errNotUTF8 says the input holds bytes that are not UTF-8.
type errNotUTF8 struct{ Offset int64 }

func (e *errNotUTF8) Error() string {
	return fmt.Sprintf("offset %d: not UTF-8 text (is the file in another encoding?)", e.Offset)
}

// utf8Reader passes bytes through and fails at the first sequence that is
// not UTF-8. encoding/json would silently turn such bytes into U+FFFD, and a
// memory that is meant to be verbatim must not do that behind a person's back.
type utf8Reader struct {
	r    io.Reader
	off  int64 // bytes passed on so far
	tail [utf8.UTFMax]byte
	nt   int // bytes of an incomplete sequence held back from the last read
	err  error
}

func (u *utf8Reader) Read(p []byte) (int, error) {
	if u.err != nil {
		return 0, u.err
	}
	if len(p) < utf8.UTFMax {
		return 0, io.ErrShortBuffer
	}
	n := copy(p, u.tail[:u.nt])
	u.nt = 0
	m, err := u.r.Read(p[n:])
	n += m
	good := validPrefix(p[:n])
	if good < n {
		rest := p[good:n]
		if err == nil && len(rest) < utf8.UTFMax && !utf8.FullRune(rest) {
			u.nt = copy(u.tail[:], rest) // a sequence split across reads
		} else {
			u.err = &errNotUTF8{Offset: u.off + int64(good)}
		}
		n = good
	}
	if err == io.EOF && u.nt > 0 {
		u.err = &errNotUTF8{Offset: u.off + int64(n)}
	}
	u.off += int64(n)
	if u.err != nil && n == 0 {
		return 0, u.err
	}
	if u.err != nil {
		return n, nil // report the error on the next read, after the good bytes
	}
	return n, err
}

// validPrefix is the length of the longest prefix of b that is valid UTF-8.
func validPrefix(b []byte) int {
	if utf8.Valid(b) {
		return len(b)
	}
	i := 0
	for i < len(b) {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return i
}

// countReader counts bytes read, reports them, enforces a per-value cap
// between marks, and notices cancellation.
type countReader struct {
	ctx      context.Context
	r        io.Reader
	n        int64
	mark     int64
	max      int64 // 0: no cap
	progress func(int64)
	lastRep  int64
}

func (c *countReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if c.max > 0 {
		// Enforced on every read, to the byte: the decoder never sees more
		// of one value than the cap.
		left := c.max - (c.n - c.mark)
		if left <= 0 {
			return 0, errTooLarge
		}
		if int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.progress != nil && (c.n-c.lastRep >= 1<<20 || err != nil) {
		c.lastRep = c.n
		c.progress(c.n)
	}
	return n, err
}

// setMark starts a new value: the cap counts from here.
func (c *countReader) setMark() { c.mark = c.n }

// newJSONInput wraps r for a JSON export: counted, capped per conversation,
// UTF-8 checked, with a leading byte-order mark dropped.
func newJSONInput(ctx context.Context, r io.Reader, progress func(int64)) (*json.Decoder, *countReader) {
	cr := &countReader{ctx: ctx, r: r, max: maxConversationBytes, progress: progress}
	br := bufio.NewReaderSize(cr, 64<<10)
	if b, _ := br.Peek(3); string(b) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	dec := json.NewDecoder(&utf8Reader{r: br})
	return dec, cr
}

// jsonError turns a decoding error into one line naming where and what.
func jsonError(err error, dec *json.Decoder, cr *countReader) error {
	var se *json.SyntaxError
	var nu *errNotUTF8
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("offset %d: unexpected end of JSON (the file is truncated)", cr.n)
	case errors.As(err, &nu):
		return nu
	case errors.As(err, &se):
		return fmt.Errorf("offset %d: invalid JSON: %v", se.Offset, err)
	case errors.Is(err, errTooLarge):
		return fmt.Errorf("offset %d: one conversation is larger than %d MiB; refusing to hold it in memory",
			dec.InputOffset(), maxConversationBytes>>20)
	}
	return fmt.Errorf("offset %d: %w", dec.InputOffset(), err)
}

// errWrongShape says a JSON input is not the expected kind of export.
type errWrongShape struct {
	msg string
	// allSkipped: the input was read to the end, but every conversation in
	// it was skipped (and reported as such). Within an archive whose other
	// files are good, that is not fatal.
	allSkipped bool
}

func (e *errWrongShape) Error() string { return "wrong shape: " + e.msg }

// isAllSkipped reports an errWrongShape of that kind.
func isAllSkipped(err error) bool {
	var ws *errWrongShape
	return errors.As(err, &ws) && ws.allSkipped
}

// streamJSONExport walks an export whose top level is an array of
// conversations, an object {"<listKey>": [...]}, or a single conversation
// object (recognised by isOne). each is called with the decoder positioned
// at one conversation and must consume exactly one value. The decoder holds
// one conversation at a time, so memory stays bounded however large the file.
func streamJSONExport(ctx context.Context, r io.Reader, h Handler, listKey string,
	isOne func(keys map[string]json.RawMessage) bool,
	each func(i int, dec *json.Decoder) error) error {

	dec, cr := newJSONInput(ctx, r, h.Progress)
	fail := func(err error) error { return jsonError(err, dec, cr) }
	tok, err := dec.Token()
	if err == io.EOF {
		return &errWrongShape{msg: "the file is empty"}
	}
	if err != nil {
		return fail(err)
	}
	streamArray := func() error {
		for i := 0; dec.More(); i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			cr.setMark()
			if err := each(i, dec); err != nil {
				return unwrapDecode(err, fail)
			}
		}
		if _, err := dec.Token(); err != nil { // the closing ]
			return fail(err)
		}
		return nil
	}
	switch tok {
	case json.Delim('['):
		if err := streamArray(); err != nil {
			return err
		}
	case json.Delim('{'):
		other := map[string]json.RawMessage{}
		streamed := false
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return fail(err)
			}
			key, _ := kt.(string)
			cr.setMark()
			if key == listKey && !streamed {
				t, err := dec.Token()
				if err != nil {
					return fail(err)
				}
				if t != json.Delim('[') {
					return &errWrongShape{msg: fmt.Sprintf("%q is not a list", listKey)}
				}
				if err := streamArray(); err != nil {
					return err
				}
				streamed = true
				continue
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return fail(err)
			}
			other[key] = v
		}
		if _, err := dec.Token(); err != nil {
			return fail(err)
		}
		if !streamed {
			if !isOne(other) {
				return &errWrongShape{msg: "a JSON object that is neither a conversation nor a list of them"}
			}
			whole, err := json.Marshal(other)
			if err != nil {
				return fail(err)
			}
			one := json.NewDecoder(bytes.NewReader(whole))
			if err := each(0, one); err != nil {
				return unwrapDecode(err, fail)
			}
		}
	default:
		return &errWrongShape{msg: fmt.Sprintf("expected a list of conversations, found %v", describeToken(tok))}
	}
	// Anything after the top-level value means the file is not one JSON document.
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return fmt.Errorf("offset %d: invalid JSON: data after the end of the export", dec.InputOffset())
		}
		return fail(err)
	}
	return nil
}

func describeToken(t json.Token) string {
	switch v := t.(type) {
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	default:
		return fmt.Sprint(v)
	}
}

// decodeError marks an error from reading the input itself, as opposed to
// one from the handler, so it can be told with its offset.
type decodeError struct{ err error }

func (e decodeError) Error() string { return e.err.Error() }
func (e decodeError) Unwrap() error { return e.err }

func unwrapDecode(err error, fail func(error) error) error {
	var de decodeError
	if errors.As(err, &de) {
		return fail(de.err)
	}
	return err
}

// describeTypeError says which field has the wrong kind of value, in
// JSON's words rather than Go's.
func describeTypeError(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	want := "another kind of value"
	if te.Type != nil {
		switch te.Type.Kind() {
		case reflect.Map, reflect.Struct:
			want = "an object"
		case reflect.Slice, reflect.Array:
			want = "a list"
		case reflect.String:
			want = "a string"
		case reflect.Bool:
			want = "true or false"
		case reflect.Int, reflect.Int64, reflect.Float64, reflect.Float32, reflect.Int32, reflect.Uint, reflect.Uint64:
			want = "a number"
		}
	}
	if te.Field == "" {
		return fmt.Sprintf("a %s where a conversation object belongs", te.Value)
	}
	return fmt.Sprintf("field %q is a %s, not %s", te.Field, te.Value, want)
}

// decodeOne decodes the next value into v. A value of the wrong type is
// reported as skippable (skip non-nil); anything else stops the input.
func decodeOne(dec *json.Decoder, v any) (skip error, err error) {
	err = dec.Decode(v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return err, nil
	}
	if err != nil {
		return nil, decodeError{err}
	}
	return nil, nil
}

// entryTally counts the conversations of a JSON export as they are read or
// skipped, so that an export with nothing readable fails with its first reason.
type entryTally struct {
	sessions, skipped int
	first             string
}

func (t *entryTally) skip(h Handler, what, why string) {
	t.skipped++
	if t.first == "" {
		t.first = what + ": " + why
	}
	h.skip(what, why)
}

func (t *entryTally) emit(h Handler, s *funes.Session) error {
	t.sessions++
	return h.Session(s)
}

// err is the file's error when every entry was skipped, else nil.
func (t *entryTally) err(source string) error {
	if t.sessions == 0 && t.skipped > 0 {
		return &errWrongShape{msg: fmt.Sprintf("no readable %s conversation in %d entries (first: %s)", source, t.skipped, t.first), allSkipped: true}
	}
	return nil
}
