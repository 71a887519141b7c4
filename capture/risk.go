package capture

import (
	"context"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// riskWindow is how close to Claude Code's cleanup a session not in the
// memory must be for a warning.
const riskWindow = 7 * 24 * time.Hour

// Risk counts Claude Code sessions that are on disk but not in the memory,
// and how many of them Claude Code will delete within a week.
type Risk struct {
	CleanupDays int       `json:"cleanup_days"`
	NotImported int       `json:"not_imported"`
	AtRisk      int       `json:"at_risk"`         // deleted by Claude Code within riskWindow
	Oldest      time.Time `json:"oldest,omitzero"` // the oldest session not imported
}

// Warning is a one-line warning about r, the sessions being in the folder
// projects, or "" when there is nothing to worry about.
func (r Risk) Warning(projects string) string {
	if r.AtRisk == 0 {
		return ""
	}
	n := "1 Claude Code session that is"
	if r.AtRisk > 1 {
		n = strconv.Itoa(r.AtRisk) + " Claude Code sessions that are"
	}
	return "Claude Code deletes sessions after " + strconv.Itoa(r.CleanupDays) + " days (cleanupPeriodDays): " + n +
		" not in Ireneo will be deleted within a week. Import them now: `ireneo import " + projects + "` (or Import on the app's Import screen)."
}

// storedIDs is the session ids m holds of a harness, read a page at a time.
func storedIDs(ctx context.Context, m *memory.Memory, harness string) (map[string]bool, error) {
	have := map[string]bool{}
	for off := 0; ; off += 1000 {
		list, _, err := conversations.List(ctx, m, conversations.Query{Source: harness, Limit: 1000, Offset: off})
		if err != nil {
			return nil, err
		}
		for _, s := range list {
			have[s.SessionID] = true
		}
		if len(list) < 1000 {
			return have, nil
		}
	}
}

// SessionsAtRisk walks Claude Code's projects folder for top-level
// transcripts whose session is not in memory m, given Claude Code's cleanup
// period in days.
func SessionsAtRisk(ctx context.Context, m *memory.Memory, projects string, cleanupDays int, now time.Time) (Risk, error) {
	r := Risk{CleanupDays: cleanupDays}
	have, err := storedIDs(ctx, m, funes.HarnessClaudeCode)
	if err != nil {
		return r, err
	}
	deadline := now.Add(-time.Duration(cleanupDays)*24*time.Hour + riskWindow)
	err = filepath.WalkDir(projects, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a folder we cannot read is not a session we can save
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			// Transcripts sit one level down; subagent folders hold parts of them.
			if p != projects && filepath.Dir(p) != projects {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".jsonl") || have[strings.TrimSuffix(d.Name(), ".jsonl")] {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		r.NotImported++
		if r.Oldest.IsZero() || info.ModTime().Before(r.Oldest) {
			r.Oldest = info.ModTime()
		}
		if info.ModTime().Before(deadline) {
			r.AtRisk++
		}
		return nil
	})
	return r, err
}
