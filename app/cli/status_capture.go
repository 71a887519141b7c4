package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ireneo-app/ireneo/capture"
	"github.com/ireneo-app/ireneo/clients"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
)

// captureStatus is what `status` says about the capture hooks: whether
// they are installed, the last hook run and problem, and the Claude Code
// sessions its cleanup will delete before Ireneo has them.
type captureStatus struct {
	Hooks       []clients.HookState `json:"hooks"`
	Log         string              `json:"log"`
	LastRun     *capture.LogLine    `json:"last_run,omitempty"`
	LastProblem *capture.LogLine    `json:"last_problem,omitempty"`
	ClaudeCode  *capture.Risk       `json:"claude_code,omitempty"`
	Warning     string              `json:"warning,omitempty"`
	GeminiCLI   *capture.GeminiRisk `json:"gemini_cli,omitempty"`
	// GeminiWarning is Gemini CLI's: it deletes old sessions too.
	GeminiWarning string `json:"gemini_warning,omitempty"`
}

func (g *globals) captureStatus(ctx context.Context, m *memory.Memory) captureStatus {
	o := clients.ConnectOptions{ClaudeConfigDir: g.cfg.ClaudeConfigDir, CodexHome: g.cfg.CodexHome}
	cs := captureStatus{Log: capture.LogPath(m.Dir())}
	for _, client := range clients.HookClientsHere(o) {
		cs.Hooks = append(cs.Hooks, clients.HooksInstalled(client, o))
	}
	if lines, err := capture.ReadLog(m.Dir(), 50); err == nil && len(lines) > 0 {
		last := lines[len(lines)-1]
		cs.LastRun = &last
		for i := len(lines) - 1; i >= 0; i-- {
			if lines[i].Error {
				p := lines[i]
				cs.LastProblem = &p
				break
			}
		}
	}
	if days, err := clients.ClaudeCodeCleanupDays(o); err == nil {
		for _, l := range claudeProjectDirs(g) {
			r, err := capture.SessionsAtRisk(ctx, m, l, days, time.Now())
			if err != nil {
				continue
			}
			if cs.ClaudeCode == nil {
				cs.ClaudeCode = &r
			} else {
				cs.ClaudeCode.NotImported += r.NotImported
				cs.ClaudeCode.AtRisk += r.AtRisk
			}
		}
		if cs.ClaudeCode != nil {
			cs.Warning = cs.ClaudeCode.Warning(claudeProjectDirs(g)[0])
		}
	}
	cs.GeminiCLI, cs.GeminiWarning = geminiRisk(ctx, m)
	return cs
}

// statusUnopened is status when the memory cannot be opened (a full or
// read-only disk): the hooks' last problem, which the fallback log may
// hold, then the error.
func (g *globals) statusUnopened(err error) error {
	if lines, lerr := capture.ReadLog(g.cfg.MemoryDir, 50); lerr == nil {
		for i := len(lines) - 1; i >= 0; i-- {
			if lines[i].Error {
				fmt.Fprintf(g.stdout, "hook problem:  %s %s (log: %s)\n", lines[i].Time.Local().Format("2006-01-02 15:04"), lines[i].Text, lines[i].File)
				break
			}
		}
	}
	return err
}

// claudeProjectDirs are the Claude Code projects folders on this machine.
func claudeProjectDirs(g *globals) []string {
	var out []string
	for _, l := range importers.DefaultLocations(g.toolHomes()) {
		if l.What == "Claude Code projects" { // as importers.DefaultLocations names it
			out = append(out, l.Path)
		}
	}
	return out
}

func printCaptureStatus(w io.Writer, cs captureStatus) {
	for _, h := range cs.Hooks {
		name := clientLabel(h.Client)
		switch {
		case h.Problem != "":
			fmt.Fprintf(w, "hooks:         %s: cannot tell (%s)\n", name, h.Problem)
		case h.Installed:
			fmt.Fprintf(w, "hooks:         %s: installed in %s\n", name, h.Path)
		default:
			fmt.Fprintf(w, "hooks:         %s: not installed (`ireneo connect %s --write --hooks` imports each session as it ends)\n", name, h.Client)
		}
	}
	if cs.LastRun != nil && !cs.LastRun.Error {
		fmt.Fprintf(w, "last hook:     %s %s\n", cs.LastRun.Time.Local().Format("2006-01-02 15:04"), cs.LastRun.Text)
	}
	if cs.LastProblem != nil {
		fmt.Fprintf(w, "hook problem:  %s %s (log: %s)\n", cs.LastProblem.Time.Local().Format("2006-01-02 15:04"), cs.LastProblem.Text, cs.LastProblem.File)
	}
	if cs.Warning != "" {
		fmt.Fprintf(w, "warning:       %s\n", cs.Warning)
	}
	if cs.GeminiWarning != "" {
		fmt.Fprintf(w, "warning:       %s\n", cs.GeminiWarning)
	}
}

func clientLabel(client string) string { return clients.Label(client) }
