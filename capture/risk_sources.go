package capture

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// GeminiRisk counts Gemini CLI sessions on disk that are not in the memory,
// and how many of them Gemini CLI's session retention
// (general.sessionRetention, on by default, 30 days) deletes within a
// week.
type GeminiRisk struct {
	MaxAge      time.Duration `json:"max_age"`
	NotImported int           `json:"not_imported"`
	AtRisk      int           `json:"at_risk"`
}

// Warning is a one-line warning about r, the sessions being under tmp
// (~/.gemini/tmp), or "" when there is nothing to worry about.
func (r GeminiRisk) Warning(tmp string) string {
	if r.AtRisk == 0 {
		return ""
	}
	n := "1 Gemini CLI session that is"
	if r.AtRisk > 1 {
		n = strconv.Itoa(r.AtRisk) + " Gemini CLI sessions that are"
	}
	return "Gemini CLI deletes sessions after " + retentionText(r.MaxAge) + " (general.sessionRetention): " + n +
		" not in Ireneo will be deleted within a week. Import them now: `ireneo import " + tmp + "` (or Import on the app's Import screen)."
}

func retentionText(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + " days"
	}
	return d.String()
}

// geminiSessionID finds the sessionId near the start of a session file,
// where Gemini CLI itself looks for it.
var geminiSessionID = regexp.MustCompile(`"sessionId"\s*:\s*"([^"\\]{1,200})"`)

// GeminiSessionsAtRisk walks Gemini CLI's tmp folder (<project>/chats/
// session-*.jsonl and older .json) for sessions not in memory m, given the
// retention's maximum age. A file's age is its last change, as Gemini CLI
// dates a session by its last update.
func GeminiSessionsAtRisk(ctx context.Context, m *memory.Memory, tmp string, maxAge time.Duration, now time.Time) (GeminiRisk, error) {
	r := GeminiRisk{MaxAge: maxAge}
	have, err := storedIDs(ctx, m, funes.HarnessGeminiCLI)
	if err != nil {
		return r, err
	}
	deadline := now.Add(-maxAge + riskWindow)
	files, _ := filepath.Glob(filepath.Join(tmp, "*", "chats", "session-*"))
	for _, p := range files {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		if !strings.HasSuffix(p, ".jsonl") && !strings.HasSuffix(p, ".json") {
			continue
		}
		info, err := os.Stat(p)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if id := geminiFileSession(p); id != "" && have[id] {
			continue
		}
		r.NotImported++
		if info.ModTime().Before(deadline) {
			r.AtRisk++
		}
	}
	return r, nil
}

func geminiFileSession(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := bufio.NewReader(f).Read(buf)
	if m := geminiSessionID.FindSubmatch(buf[:n]); m != nil {
		return string(m[1])
	}
	return ""
}
