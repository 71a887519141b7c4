package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/ireneo-app/ireneo/funes"
)

// Capture hooks: entries in a harness's own settings that run
// `ireneo hook CLIENT` whenever a session ends, compacts or finishes a turn,
// so a session reaches the memory even when the tray app never runs.
// They are written like the MCP entries: merged, after a backup.

// ClaudeCodeHookEvents are the Claude Code hook events Ireneo listens to:
// the end of a session, a compaction, and (throttled by the hook itself)
// the end of each reply.
var ClaudeCodeHookEvents = []string{"SessionEnd", "PreCompact", "Stop"}

// HookTimeout is the timeout, in seconds, written into Claude Code's hook
// entries. The hook returns in milliseconds (it imports in a detached
// process); this only bounds a hook that hangs.
const HookTimeout = 10

// HookArgs are the words after the binary and its --memory that run the
// hook for client.
func HookArgs(client string) []string { return []string{"hook", client} }

// HookConfig is one client's capture hooks: the file they go in and how.
type HookConfig struct {
	Client string `json:"client"`
	Path   string `json:"path"`
	// Command is what the hook runs: for Claude Code a shell command line,
	// for Codex the notify program's argv (shown joined).
	Command string   `json:"command"`
	Argv    []string `json:"argv,omitempty"`
	Note    string   `json:"note,omitempty"`
}

// ClaudeCodeSettingsPath is Claude Code's user settings file:
// $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json.
func ClaudeCodeSettingsPath(o ConnectOptions) (string, error) {
	if o.ClaudeConfigDir != "" {
		return filepath.Join(o.ClaudeConfigDir, "settings.json"), nil
	}
	home, err := homeOf(o)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".claude", "settings.json"), nil
}

// CodexConfigPath is Codex's config.toml: $CODEX_HOME/config.toml, else
// ~/.codex/config.toml.
func CodexConfigPath(o ConnectOptions) (string, error) {
	if o.CodexHome != "" {
		return filepath.Join(o.CodexHome, "config.toml"), nil
	}
	home, err := homeOf(o)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".codex", "config.toml"), nil
}

func homeOf(o ConnectOptions) (string, error) {
	if o.Home != "" {
		return o.Home, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory: %w", err)
	}
	return h, nil
}

// Hooks builds client's capture hooks (HookClients have them).
// The command names the binary and the memory by absolute path: a harness
// runs it with its own environment, from any folder.
func Hooks(client string, o ConnectOptions) (*HookConfig, error) {
	if o.MemoryDir == "" {
		return nil, fmt.Errorf("hooks for %s: the memory directory is needed", client)
	}
	dir, err := filepath.Abs(o.MemoryDir)
	if err != nil {
		return nil, fmt.Errorf("hooks for %s: memory directory %s: %w", client, o.MemoryDir, err)
	}
	exe := o.Command
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("hooks for %s: cannot tell where the ireneo binary is: %w", client, err)
		}
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return nil, err
	}
	argv := append([]string{exe, "--memory", dir}, HookArgs(client)...)
	h := &HookConfig{Client: client, Argv: argv}
	switch client {
	case ClientClaudeCode:
		if h.Path, err = ClaudeCodeSettingsPath(o); err != nil {
			return nil, err
		}
		quoted := make([]string, len(argv))
		for i, a := range argv {
			quoted[i] = shellQuote(a)
		}
		h.Command = strings.Join(quoted, " ")
		h.Argv = nil
		h.Note = "Claude Code runs it when a session ends or compacts, and after a reply (at most once a minute per session); it imports that session in the background and never holds Claude Code up."
	case ClientCodex:
		if h.Path, err = CodexConfigPath(o); err != nil {
			return nil, err
		}
		h.Command = strings.Join(argv, " ")
		h.Note = "Codex runs it after each turn (Ireneo imports at most once a minute per session, and the last turn always); a notify program you already had keeps running after it."
	default:
		if err := sourceHooks(h, o); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// Write merges the hooks into the client's settings: the file is backed up
// first, every other setting and hook is kept, an earlier Ireneo hook is
// replaced, and for Codex a notify program already set is chained to.
func (h *HookConfig) Write(now time.Time) (WriteResult, error) {
	res := WriteResult{Path: h.Path}
	target, err := hooksTarget(h.Path)
	if err != nil {
		return res, err
	}
	old, err := os.ReadFile(target)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("read %s: %w", h.Path, err)
	}
	var out []byte
	out, res.Replaced, err = h.merge(old)
	if err != nil {
		return res, fmt.Errorf("%s: %w; add the hook by hand instead", h.Path, err)
	}
	if exists {
		if bytes.Equal(old, out) {
			return res, nil // already as it should be: no backup, no write
		}
		if res.Backup, err = writeBackup(h.Path, old, now); err != nil {
			return res, err
		}
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return res, fmt.Errorf("write %s: %w", h.Path, err)
	}
	if err := funes.WriteFileAtomic(target, out, mode); err != nil {
		return res, fmt.Errorf("write %s: %w", h.Path, err)
	}
	return res, nil
}

// hooksTarget is the file hooks at path are written to: a symlink's target;
// a link to no file yet is replaced by the file.
func hooksTarget(path string) (string, error) { return linkTarget(path, false) }

// merge puts the hooks into the settings file's old bytes.
func (h *HookConfig) merge(old []byte) ([]byte, bool, error) {
	switch h.Client {
	case ClientCodex:
		return mergeCodexNotify(old, h.Argv)
	case ClientClaudeCode:
		return mergeClaudeHooks(old, h.Command)
	default:
		return mergeSourceHooks(h, old)
	}
}

// isOurHookCommand tells Ireneo's hook command apart from anyone else's, in
// whatever folder the binary was when it was written.
func isOurHookCommand(cmd, client string) bool {
	return strings.HasSuffix(strings.TrimSpace(cmd), " "+strings.Join(HookArgs(client), " "))
}

// mergeClaudeHooks adds one hook group per event in ClaudeCodeHookEvents to
// Claude Code's settings, after taking out any earlier Ireneo hook, keeping
// every other key, group and hook in order.
func mergeClaudeHooks(old []byte, command string) ([]byte, bool, error) {
	root := &jsonObject{}
	if len(bytes.TrimSpace(old)) > 0 {
		var err error
		if root, err = parseJSONObject(old); err != nil {
			return nil, false, fmt.Errorf("not a plain JSON object (%v)", err)
		}
	}
	hooks := &jsonObject{}
	if raw, ok := root.get("hooks"); ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		var err error
		if hooks, err = parseJSONObject(raw); err != nil {
			return nil, false, fmt.Errorf(`"hooks" is not a JSON object (%v)`, err)
		}
	}
	replaced := false
	for _, event := range ClaudeCodeHookEvents {
		var groups []json.RawMessage
		if raw, ok := hooks.get(event); ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, false, fmt.Errorf("hooks.%s is not a list (%v)", event, err)
			}
		}
		var kept []json.RawMessage
		for _, g := range groups {
			group, err := parseJSONObject(g)
			if err != nil {
				return nil, false, fmt.Errorf("a hooks.%s entry is not an object (%v)", event, err)
			}
			var list []json.RawMessage
			if raw, ok := group.get("hooks"); ok {
				if err := json.Unmarshal(raw, &list); err != nil {
					return nil, false, fmt.Errorf("a hooks.%s entry's hooks is not a list (%v)", event, err)
				}
			}
			var rest []json.RawMessage
			for _, hk := range list {
				var one struct {
					Command string `json:"command"`
				}
				if json.Unmarshal(hk, &one) == nil && isOurHookCommand(one.Command, ClientClaudeCode) {
					replaced = true
					continue
				}
				rest = append(rest, hk)
			}
			if len(rest) == len(list) {
				kept = append(kept, g)
				continue
			}
			if len(rest) == 0 {
				continue // the group held only our hook
			}
			b, _ := marshalNoEscape(rest)
			group.set("hooks", b)
			kept = append(kept, group.marshal())
		}
		ours, _ := marshalNoEscape(map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": HookTimeout}}})
		kept = append(kept, ours)
		b, _ := marshalNoEscape(kept)
		hooks.set(event, b)
	}
	root.set("hooks", hooks.marshal())
	var buf bytes.Buffer
	if err := json.Indent(&buf, root.marshal(), "", "  "); err != nil {
		return nil, false, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), replaced, nil
}

// tomlNotify matches the start of a top-level notify key.
var tomlNotify = regexp.MustCompile(`^\s*("notify"|'notify'|notify)\s*=`)

// mergeCodexNotify sets Codex's top-level notify to argv. A notify program
// someone else set is kept: it goes after "--", and the hook runs it with
// the same JSON. An earlier Ireneo notify is replaced, keeping its chain.
func mergeCodexNotify(old []byte, argv []string) ([]byte, bool, error) {
	var before struct {
		Notify any `toml:"notify"`
	}
	if _, err := toml.Decode(string(old), &before); err != nil {
		return nil, false, fmt.Errorf("not valid TOML (%v)", err)
	}
	var prev []string
	switch v := before.Notify.(type) {
	case nil:
	case []any:
		for _, a := range v {
			s, ok := a.(string)
			if !ok {
				return nil, false, errors.New("notify is not a list of strings")
			}
			prev = append(prev, s)
		}
	default:
		return nil, false, errors.New("notify is not a list of strings")
	}
	replaced := false
	chain := prev
	if i := slices.Index(prev, "hook"); i > 0 && i+1 < len(prev) && prev[i+1] == ClientCodex {
		replaced = true
		chain = nil
		if j := slices.Index(prev, "--"); j > i {
			chain = prev[j+1:]
		}
	}
	want := slices.Clone(argv)
	if len(chain) > 0 {
		want = append(append(want, "--"), chain...)
	}
	quoted := make([]string, len(want))
	for i, a := range want {
		quoted[i] = tomlString(a)
	}
	line := "notify = [" + strings.Join(quoted, ", ") + "]\n"

	// Take out the old top-level notify (it may span lines), then put ours
	// first: a top-level key must come before any table.
	lines := strings.SplitAfter(string(old), "\n")
	var kept []string
	inTable, skipping, depth := false, false, 0
	for _, ln := range lines {
		trimmed := strings.TrimRight(ln, "\r\n")
		if skipping {
			depth += bracketDepth(trimmed)
			if depth <= 0 {
				skipping = false
			}
			continue
		}
		if tomlTable.MatchString(trimmed) {
			inTable = true
		}
		if !inTable && tomlNotify.MatchString(trimmed) {
			depth = bracketDepth(trimmed)
			skipping = depth > 0
			continue
		}
		kept = append(kept, ln)
	}
	out := line + strings.Join(kept, "")
	var after struct {
		Notify []string `toml:"notify"`
	}
	if _, err := toml.Decode(out, &after); err != nil {
		return nil, false, fmt.Errorf("cannot set notify cleanly (%v)", err)
	}
	if !slices.Equal(after.Notify, want) {
		return nil, false, errors.New("cannot set notify cleanly: it is defined in a form Ireneo does not edit")
	}
	return []byte(out), replaced, nil
}

// bracketDepth counts [ minus ] outside strings and comments on one line.
func bracketDepth(line string) int {
	depth := 0
	var quote byte
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote != 0:
			if ch == '\\' && quote == '"' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'':
			quote = ch
		case ch == '#':
			return depth
		case ch == '[':
			depth++
		case ch == ']':
			depth--
		}
	}
	return depth
}

// HookState says whether a client's capture hooks are in its settings.
type HookState struct {
	Client    string   `json:"client"`
	Path      string   `json:"path"`
	Installed bool     `json:"installed"`
	Missing   []string `json:"missing,omitempty"` // Claude Code events without Ireneo's hook
	Problem   string   `json:"problem,omitempty"` // the file could not be read
}

// HooksInstalled reads client's settings and reports whether Ireneo's
// capture hooks are there.
func HooksInstalled(client string, o ConnectOptions) HookState {
	st := HookState{Client: client}
	var err error
	switch client {
	case ClientClaudeCode:
		st.Path, err = ClaudeCodeSettingsPath(o)
	case ClientCodex:
		st.Path, err = CodexConfigPath(o)
	default:
		return sourceHooksInstalled(client, o)
	}
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	data, err := os.ReadFile(st.Path)
	if errors.Is(err, fs.ErrNotExist) {
		if client == ClientClaudeCode {
			st.Missing = slices.Clone(ClaudeCodeHookEvents)
		}
		return st
	}
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	if client == ClientCodex {
		var cfg struct {
			Notify []string `toml:"notify"`
		}
		if _, err := toml.Decode(string(data), &cfg); err != nil {
			st.Problem = fmt.Sprintf("%s is not valid TOML: %v", st.Path, err)
			return st
		}
		i := slices.Index(cfg.Notify, "hook")
		st.Installed = i > 0 && i+1 < len(cfg.Notify) && cfg.Notify[i+1] == ClientCodex
		return st
	}
	var cfg struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		st.Problem = fmt.Sprintf("%s is not valid JSON: %v", st.Path, err)
		return st
	}
	for _, event := range ClaudeCodeHookEvents {
		found := false
		for _, g := range cfg.Hooks[event] {
			for _, hk := range g.Hooks {
				found = found || isOurHookCommand(hk.Command, ClientClaudeCode)
			}
		}
		if !found {
			st.Missing = append(st.Missing, event)
		}
	}
	st.Installed = len(st.Missing) == 0
	return st
}

// ClaudeCodeCleanupDays is Claude Code's cleanupPeriodDays: how many days
// it keeps a session's transcript before deleting it (30 unless set).
func ClaudeCodeCleanupDays(o ConnectOptions) (int, error) {
	path, err := ClaudeCodeSettingsPath(o)
	if err != nil {
		return 0, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultClaudeCleanupDays, nil
	}
	if err != nil {
		return 0, err
	}
	var cfg struct {
		Cleanup *float64 `json:"cleanupPeriodDays"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return 0, fmt.Errorf("%s is not valid JSON: %v", path, err)
	}
	if cfg.Cleanup == nil {
		return DefaultClaudeCleanupDays, nil
	}
	return int(*cfg.Cleanup), nil
}

// DefaultClaudeCleanupDays is Claude Code's cleanup period when not set.
const DefaultClaudeCleanupDays = 30
