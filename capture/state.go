package capture

import (
	"bufio"
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
