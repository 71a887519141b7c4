package importers

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/adrg/xdg"
)

// Location is a place where AI history is kept by default: a folder, or
// a database file (opencode's, Cursor's).
type Location struct {
	Path string
	What string // "Codex sessions", "Claude Code projects", "export archive"
	// Live folders and databases keep growing while their agent runs:
	// --watch follows them.
	Live bool
}

// Location names, as DefaultLocations gives them.
const (
	WhatClaudeCode       = "Claude Code projects"
	WhatGeminiCLI        = "Gemini CLI sessions"
	WhatOpenCode         = "opencode database"
	WhatOpenCodeStorage  = "opencode sessions (before 1.2)"
	WhatCursorIDE        = "Cursor chats and composers"
	WhatCursorWorkspaces = "Cursor workspaces (older chats)"
	WhatCursorAgent      = "Cursor agent transcripts"
	WhatCopilotCLI       = "GitHub Copilot CLI sessions"
)

// Homes are the folders Codex and Claude Code were told to keep their files
// in ($CODEX_HOME and $CLAUDE_CONFIG_DIR, which the app's configuration
// reads); "" means only their defaults under the home folder.
type Homes struct {
	Codex      string
	ClaudeCode string
}

// DefaultLocations lists the places that exist on this machine: Codex
// sessions (h.Codex/sessions, ~/.codex/sessions and archived ones),
// Claude Code projects (h.ClaudeCode/projects, ~/.claude/projects),
// Gemini CLI's sessions ($GEMINI_CLI_HOME/.gemini/tmp, ~/.gemini/tmp),
// opencode's database ($XDG_DATA_HOME/opencode/opencode*.db, default
// ~/.local/share) and its older storage/, Cursor's state.vscdb (per
// platform: ~/.config/Cursor, ~/Library/Application Support/Cursor,
// %APPDATA%\Cursor) and workspaces, Cursor's agent transcripts
// (~/.cursor/projects), Copilot CLI's sessions ($COPILOT_HOME or
// ~/.copilot, session-state/), and ChatGPT or Claude export zips in the
// Downloads folder.
func DefaultLocations(h Homes) []Location {
	home, _ := os.UserHomeDir()
	var out []Location
	seen := map[string]bool{}
	addPath := func(p, what string, live, wantDir bool) {
		if p == "" {
			return
		}
		p = filepath.Clean(p)
		if seen[p] {
			return
		}
		if fi, err := os.Stat(p); err != nil || fi.IsDir() != wantDir || (!wantDir && !fi.Mode().IsRegular()) {
			return
		}
		seen[p] = true
		out = append(out, Location{Path: p, What: what, Live: live})
	}
	add := func(p, what string, live bool) { addPath(p, what, live, true) }
	codexHomes := []string{h.Codex}
	claudeHomes := []string{h.ClaudeCode}
	if home != "" {
		codexHomes = append(codexHomes, filepath.Join(home, ".codex"))
		claudeHomes = append(claudeHomes, filepath.Join(home, ".claude"))
	}
	for _, h := range codexHomes {
		if h != "" {
			add(filepath.Join(h, "sessions"), "Codex sessions", true)
			add(filepath.Join(h, "archived_sessions"), "Codex archived sessions", false)
		}
	}
	for _, h := range claudeHomes {
		if h != "" {
			add(filepath.Join(h, "projects"), WhatClaudeCode, true)
		}
	}
	for _, l := range otherHarnesses(home) {
		addPath(l.Path, l.What, l.Live, l.What != WhatOpenCode && l.What != WhatCursorIDE)
	}
	downloads := []string{xdg.UserDirs.Download}
	if home != "" {
		downloads = append(downloads, filepath.Join(home, "Downloads"))
	}
	var zips []string
	for _, d := range downloads {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Clean(filepath.Join(d, e.Name()))
			if e.IsDir() || !strings.EqualFold(filepath.Ext(p), ".zip") || seen[p] {
				continue
			}
			seen[p] = true
			if ins, err := detectZip(p, true); err == nil && len(ins) > 0 {
				zips = append(zips, p)
			}
		}
	}
	sort.Strings(zips)
	for _, z := range zips {
		out = append(out, Location{Path: z, What: "export archive"})
	}
	return out
}

// otherHarnesses are where Gemini CLI, opencode, Cursor and Copilot CLI
// keep their history, whether or not it is there; their own environment
// variables move them as they move the harness.
func otherHarnesses(home string) []Location {
	env := os.Getenv
	var out []Location
	geminiHome := env("GEMINI_CLI_HOME")
	if geminiHome == "" {
		geminiHome = home
	}
	if geminiHome != "" {
		out = append(out, Location{Path: filepath.Join(geminiHome, ".gemini", "tmp"), What: WhatGeminiCLI, Live: true})
	}
	data := env("XDG_DATA_HOME")
	if data == "" && home != "" {
		data = filepath.Join(home, ".local", "share")
	}
	if data != "" {
		dir := filepath.Join(data, "opencode")
		dbs, _ := filepath.Glob(filepath.Join(dir, "opencode*.db"))
		sort.Strings(dbs)
		for _, db := range dbs {
			out = append(out, Location{Path: db, What: WhatOpenCode, Live: true})
		}
		out = append(out, Location{Path: filepath.Join(dir, "storage"), What: WhatOpenCodeStorage})
	}
	for _, user := range cursorUserDirs(home) {
		out = append(out,
			Location{Path: filepath.Join(user, "globalStorage", "state.vscdb"), What: WhatCursorIDE, Live: true},
			Location{Path: filepath.Join(user, "workspaceStorage"), What: WhatCursorWorkspaces})
	}
	if home != "" {
		out = append(out, Location{Path: filepath.Join(home, ".cursor", "projects"), What: WhatCursorAgent, Live: true})
	}
	copilot := env("COPILOT_HOME")
	if copilot == "" && home != "" {
		copilot = filepath.Join(home, ".copilot")
	}
	if copilot != "" {
		out = append(out, Location{Path: filepath.Join(copilot, "session-state"), What: WhatCopilotCLI, Live: true})
	}
	return out
}

// cursorUserDirs are the folders Cursor keeps its User/ data in, on this
// platform first.
func cursorUserDirs(home string) []string {
	var out []string
	if runtime.GOOS == "windows" {
		if a := os.Getenv("APPDATA"); a != "" {
			out = append(out, filepath.Join(a, "Cursor", "User"))
		}
	}
	if home != "" {
		if runtime.GOOS == "darwin" {
			out = append(out, filepath.Join(home, "Library", "Application Support", "Cursor", "User"))
		}
		cfg := os.Getenv("XDG_CONFIG_HOME")
		if cfg == "" {
			cfg = filepath.Join(home, ".config")
		}
		out = append(out, filepath.Join(cfg, "Cursor", "User"))
	}
	return out
}
