package importers

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/adrg/xdg"
)

// Location is a place where AI history is kept by default.
type Location struct {
	Path string
	What string // "Codex sessions", "Claude Code projects", "export archive"
	// Live folders keep growing while their agent runs: --watch follows them.
	Live bool
}

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
// and ChatGPT or Claude export zips in the Downloads folder.
func DefaultLocations(h Homes) []Location {
	home, _ := os.UserHomeDir()
	var out []Location
	seen := map[string]bool{}
	add := func(p, what string, live bool) {
		if p == "" {
			return
		}
		p = filepath.Clean(p)
		if seen[p] {
			return
		}
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			return
		}
		seen[p] = true
		out = append(out, Location{Path: p, What: what, Live: live})
	}
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
			add(filepath.Join(h, "projects"), "Claude Code projects", true)
		}
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
