package capture

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DirName is capture's folder inside the memory folder: the log, and a lock
// and a time stamp per session. It holds paths and ids, never a transcript's
// text.
const DirName = "capture"

// LogName is the log file in it.
const LogName = "hooks.log"

// maxLog is where the log is cut to its newer half.
const maxLog = 256 << 10

// LogPath is the hook log of the memory in memDir.
func LogPath(memDir string) string { return filepath.Join(memDir, DirName, LogName) }

func stateDir(memDir string) (string, error) {
	d := filepath.Join(memDir, DirName)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", fmt.Errorf("capture folder %s: %w", d, err)
	}
	return d, nil
}

// Log appends one line to the hook log, keeping it small. It never fails:
// a hook has nowhere else to say anything.
func Log(memDir string, now time.Time, format string, args ...any) {
	d, err := stateDir(memDir)
	if err != nil {
		return
	}
	p := filepath.Join(d, LogName)
	if st, err := os.Stat(p); err == nil && st.Size() > maxLog {
		trimLog(p)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	line := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	fmt.Fprintf(f, "%s %s\n", now.UTC().Format(time.RFC3339), line)
}

// trimLog keeps the newer half of the log.
func trimLog(p string) {
	data, err := os.ReadFile(p)
	if err != nil {
		return
	}
	data = data[len(data)/2:]
	if i := strings.IndexByte(string(data), '\n'); i >= 0 {
		data = data[i+1:]
	}
	os.WriteFile(p, data, 0o600)
}

// LogLine is one line of the hook log.
type LogLine struct {
	Time  time.Time `json:"time"`
	Text  string    `json:"text"`
	Error bool      `json:"error"`
}

// ErrorMark is in the text of a line that reports a failure.
const ErrorMark = "error: "

// ReadLog returns the log's last n lines, oldest first.
func ReadLog(memDir string, n int) ([]LogLine, error) {
	f, err := os.Open(LogPath(memDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []LogLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		stamp, text, ok := strings.Cut(sc.Text(), " ")
		t, err := time.Parse(time.RFC3339, stamp)
		if !ok || err != nil {
			continue
		}
		out = append(out, LogLine{Time: t, Text: text, Error: strings.Contains(text, ErrorMark)})
		if len(out) > n {
			out = out[1:]
		}
	}
	return out, sc.Err()
}

// stampPath is the file whose modification time is a session's last import.
func stampPath(d string, e Event) string {
	return filepath.Join(d, e.Harness+"-"+e.SessionID+".stamp")
}

// pendingPath exists while a trailing import of a session waits.
func pendingPath(d string, e Event) string {
	return filepath.Join(d, e.Harness+"-"+e.SessionID+".pending")
}

// waitForTurn spaces out a throttled event's imports: it returns at once
// when the session was not imported in the last every; otherwise it waits
// until then, unless another import of the session already waits, in
// which case it returns false (that one will take in this reply too).
func waitForTurn(ctx context.Context, memDir string, e Event, every time.Duration, now func() time.Time) (bool, error) {
	d, err := stateDir(memDir)
	if err != nil {
		return false, err
	}
	st, err := os.Stat(stampPath(d, e))
	if err != nil || now().Sub(st.ModTime()) >= every {
		return true, nil
	}
	pending := pendingPath(d, e)
	f, err := os.OpenFile(pending, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// A waiter that died leaves its mark; one older than a round is stale.
		if pst, serr := os.Stat(pending); serr == nil && now().Sub(pst.ModTime()) < 2*every {
			return false, nil
		}
		os.Remove(pending)
		if f, err = os.OpenFile(pending, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err != nil {
			return false, nil
		}
	} else if err != nil {
		return false, fmt.Errorf("capture: %w", err)
	}
	f.Close()
	defer os.Remove(pending)
	wait := every - now().Sub(st.ModTime())
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-t.C:
	}
	return true, nil
}

// markImported records the time of a session's import.
func markImported(memDir string, e Event, at time.Time) {
	d, err := stateDir(memDir)
	if err != nil {
		return
	}
	p := stampPath(d, e)
	if err := os.WriteFile(p, nil, 0o600); err == nil {
		os.Chtimes(p, at, at)
	}
}
