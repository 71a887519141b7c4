package capture

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/adrg/xdg"
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

// Log appends one line to the hook log, keeping it small. When the
// memory folder cannot be written (a full disk, a read-only one) the line
// goes to the fallback log instead (FallbackLogPath), which `ireneo status`
// and the app read too; an error means neither could be written, and the
// caller has only its stderr left to say it.
func Log(memDir string, now time.Time, format string, args ...any) error {
	line := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	line = fmt.Sprintf("%s %s\n", now.UTC().Format(time.RFC3339), line)
	err := appendLog(LogPath(memDir), line)
	if err == nil {
		return nil
	}
	fb := FallbackLogPath(memDir)
	if ferr := appendLog(fb, line); ferr != nil {
		return fmt.Errorf("write the hook log: %w; and %s: %w", err, fb, ferr)
	}
	return nil
}

// appendLog appends line to the log at p, cutting it to its newer half
// when it grows past maxLog.
func appendLog(p, line string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	if st, err := os.Stat(p); err == nil && st.Size() > maxLog {
		trimLog(p)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// FallbackLogPath is where the hook log of the memory in memDir goes when
// the memory folder cannot be written: a file per memory in Ireneo's
// state folder ($XDG_STATE_HOME/ireneo, read at each call).
func FallbackLogPath(memDir string) string {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		base = xdg.StateHome
	}
	abs, err := filepath.Abs(memDir)
	if err != nil {
		abs = memDir
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(base, "ireneo", "hooks-"+hex.EncodeToString(sum[:6])+".log")
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
	File  string    `json:"file"` // the log it is in: LogPath's, or the fallback
}

// ErrorMark is in the text of a line that reports a failure.
const ErrorMark = "error: "

// ReadLog returns the last n lines of the hook log and its fallback
// (FallbackLogPath), oldest first.
func ReadLog(memDir string, n int) ([]LogLine, error) {
	a, errA := readLog(LogPath(memDir), n)
	b, errB := readLog(FallbackLogPath(memDir), n)
	if errA != nil && (errB != nil || len(b) == 0) {
		return nil, errA
	}
	out := append(a, b...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out, nil
}

func readLog(p string, n int) ([]LogLine, error) {
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
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
		out = append(out, LogLine{Time: t, Text: text, Error: strings.Contains(text, ErrorMark), File: p})
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
