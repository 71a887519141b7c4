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
	"strconv"
	"strings"
	"time"

	"github.com/tailscale/hujson"
)

// Capture hooks of the harnesses added with issue 31, each where its own
// documentation puts them and in its own shape:
//
//   - Gemini CLI: settings.json "hooks", groups of command hooks per event
//     (SessionEnd, PreCompress, AfterAgent), timeouts in milliseconds;
//     JSON with comments, so comments survive.
//   - Cursor: ~/.cursor/hooks.json, {"version":1,"hooks":{event:[{command,
//     timeout}]}} (sessionEnd, stop); the IDE and the CLI both read it.
//   - Copilot CLI: a hooks file of Ireneo's own, $COPILOT_HOME/hooks/
//     ireneo.json (sessionEnd, agentStop), beside any others there.
//   - opencode: a plugin of Ireneo's own, $XDG_CONFIG_HOME/opencode/plugins/
//     ireneo-capture.js, which runs the hook on session.idle and
//     session.compacted.
//
// Everyone else's hooks are kept; an earlier Ireneo hook is replaced.

// HookClients are the clients with capture hooks.
var HookClients = []string{ClientClaudeCode, ClientCodex, ClientGeminiCLI, ClientCursor, ClientCopilotCLI, ClientOpenCode}

// HasHooks reports whether client has capture hooks.
func HasHooks(client string) bool {
	for _, c := range HookClients {
		if c == client {
			return true
		}
	}
	return false
}

// Hook events per client, as the client names them.
var (
	GeminiHookEvents   = []string{"SessionEnd", "PreCompress", "AfterAgent"}
	CursorHookEvents   = []string{"sessionEnd", "stop"}
	CopilotHookEvents  = []string{"sessionEnd", "agentStop"}
	OpenCodeHookEvents = []string{"session.idle", "session.compacted"}
)

// HookEvents are the events client's capture hooks listen to.
func HookEvents(client string) []string {
	switch client {
	case ClientClaudeCode:
		return ClaudeCodeHookEvents
	case ClientCodex:
		return []string{"notify"}
	case ClientGeminiCLI:
		return GeminiHookEvents
	case ClientCursor:
		return CursorHookEvents
	case ClientCopilotCLI:
		return CopilotHookEvents
	case ClientOpenCode:
		return OpenCodeHookEvents
	}
	return nil
}

// openCodePluginMark is the first line of Ireneo's opencode plugin: a file
// without it is someone else's and is not overwritten.
const openCodePluginMark = "// Ireneo capture plugin: written by `ireneo connect opencode --write --hooks`."

// hookPath is where client's capture hooks go.
func hookPath(client string, o ConnectOptions) (string, error) {
	switch client {
	case ClientGeminiCLI:
		return GeminiSettingsPath(o)
	case ClientCursor:
		home, err := homeOf(o)
		if err != nil {
			return "", err
		}
		return filepath.Join(home, ".cursor", "hooks.json"), nil
	case ClientCopilotCLI:
		home, err := CopilotHome(o)
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "hooks", "ireneo.json"), nil
	case ClientOpenCode:
		cfg, err := OpenCodeConfigPath(o)
		if err != nil {
			return "", err
		}
		return filepath.Join(filepath.Dir(cfg), "plugins", "ireneo-capture.js"), nil
	}
	return "", fmt.Errorf("%s has no capture hooks; these do: %s", client, strings.Join(HookClients, ", "))
}

// sourceHooks fills in the hooks of a client above.
func sourceHooks(h *HookConfig, o ConnectOptions) error {
	var err error
	if h.Path, err = hookPath(h.Client, o); err != nil {
		return err
	}
	quoted := make([]string, len(h.Argv))
	for i, a := range h.Argv {
		quoted[i] = shellQuote(a)
	}
	h.Command = strings.Join(quoted, " ")
	switch h.Client {
	case ClientGeminiCLI:
		h.Argv = nil
		h.Note = "Gemini CLI runs it when a session ends or compresses, and after each answer (Ireneo imports at most once a minute per session, and the last answer always); it imports in the background and never holds Gemini CLI up."
	case ClientCursor:
		h.Argv = nil
		h.Note = "Cursor (the editor and the cursor-agent CLI) runs it when a conversation ends and after each answer (at most one import a minute per conversation, and the last always), in the background."
	case ClientCopilotCLI:
		h.Note = "Copilot CLI runs it when a session ends and after each answer (at most one import a minute per session, and the last always), in the background. It is a hooks file of its own; your other hooks files stay as they are."
	case ClientOpenCode:
		h.Note = "opencode loads the plugin when it starts; it runs the hook when a session goes idle (at most one import a minute per session, and the last always) or is compacted, in the background."
	}
	return nil
}

// mergeSourceHooks is the new content of a client's hook file.
func mergeSourceHooks(h *HookConfig, old []byte) ([]byte, bool, error) {
	switch h.Client {
	case ClientGeminiCLI:
		entry := map[string]any{"type": "command", "name": "ireneo-capture", "command": h.Command, "timeout": HookTimeout * 1000}
		return mergeHookLists(old, h.Client, GeminiHookEvents, true, entry, nil)
	case ClientCursor:
		entry := map[string]any{"command": h.Command, "timeout": HookTimeout}
		return mergeHookLists(old, h.Client, CursorHookEvents, false, entry, map[string]any{"version": 1})
	case ClientCopilotCLI:
		entry := map[string]any{"type": "command", "bash": h.Command, "powershell": powershellCommand(h.Argv), "timeoutSec": HookTimeout}
		return mergeHookLists(old, h.Client, CopilotHookEvents, false, entry, map[string]any{"version": 1})
	case ClientOpenCode:
		if len(bytes.TrimSpace(old)) > 0 && !bytes.HasPrefix(old, []byte(openCodePluginMark)) {
			return nil, false, errors.New("this plugin file is not Ireneo's; move it away first")
		}
		return []byte(openCodePlugin(h.Argv)), len(old) > 0, nil
	}
	return nil, false, fmt.Errorf("%s has no capture hooks", h.Client)
}

// powershellCommand is argv as a PowerShell command line.
func powershellCommand(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
	}
	return "& " + strings.Join(q, " ")
}

// openCodePlugin is Ireneo's opencode plugin, running argv with the
// session's id on stdin, detached, so opencode never waits for it.
func openCodePlugin(argv []string) string {
	a, _ := marshalNoEscape(argv)
	ev, _ := marshalNoEscape(OpenCodeHookEvents)
	return openCodePluginMark + `
// It runs Ireneo's capture hook, in the background, when a session goes idle
// (an answer is done) or is compacted, so the session reaches Ireneo even
// when its app is closed. ` + "`ireneo connect opencode --write --hooks`" + ` rewrites it;
// delete the file to stop it.
import { spawn } from "node:child_process"

const ARGV = ` + string(a) + `
const EVENTS = ` + string(ev) + `

export const IreneoCapture = async () => ({
  event: async ({ event }) => {
    const id = event?.properties?.sessionID
    if (!EVENTS.includes(event?.type) || typeof id !== "string") return
    try {
      const child = spawn(ARGV[0], ARGV.slice(1), { stdio: ["pipe", "ignore", "ignore"], detached: true, windowsHide: true })
      child.on("error", () => {})
      child.stdin.on("error", () => {})
      child.stdin.end(JSON.stringify({ session_id: id, hook_event_name: event.type, cwd: process.cwd() }))
      child.unref()
    } catch {}
  },
})
`
}

// mergeHookLists puts entry, once, in the list of each event under the
// document's "hooks" (in a group {"hooks":[entry]} when grouped), after
// taking out earlier Ireneo hooks, keeping every other key, group and hook
// in order. top are keys set when missing. JSON with comments keeps its
// comments outside the lists it changes.
func mergeHookLists(old []byte, client string, events []string, grouped bool, entry, top map[string]any) ([]byte, bool, error) {
	std := old
	plain := len(bytes.TrimSpace(old)) == 0 || json.Valid(old)
	var v hujson.Value
	if !plain {
		var err error
		if v, err = hujson.Parse(old); err != nil {
			return nil, false, fmt.Errorf("not valid JSON with comments (%v)", err)
		}
		std, _ = hujson.Standardize(bytes.Clone(old))
	}
	root := &jsonObject{}
	if len(bytes.TrimSpace(std)) > 0 {
		var err error
		if root, err = parseJSONObject(std); err != nil {
			return nil, false, fmt.Errorf("not a JSON object (%v)", err)
		}
	}
	hooks := &jsonObject{}
	hadHooks := false
	if raw, ok := root.get("hooks"); ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		var err error
		if hooks, err = parseJSONObject(raw); err != nil {
			return nil, false, fmt.Errorf(`"hooks" is not a JSON object (%v)`, err)
		}
		hadHooks = true
	}
	ours, _ := marshalNoEscape(entry)
	if grouped {
		ours, _ = marshalNoEscape(map[string]any{"hooks": []json.RawMessage{ours}})
	}
	replaced := false
	lists := map[string]json.RawMessage{}
	for _, event := range events {
		var items []json.RawMessage
		if raw, ok := hooks.get(event); ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, false, fmt.Errorf("hooks.%s is not a list (%v)", event, err)
			}
		}
		var kept []json.RawMessage
		for _, it := range items {
			if !grouped {
				if isOurHookEntry(it, client) {
					replaced = true
					continue
				}
				kept = append(kept, it)
				continue
			}
			group, err := parseJSONObject(it)
			if err != nil {
				return nil, false, fmt.Errorf("a hooks.%s entry is not an object (%v)", event, err)
			}
			var list, rest []json.RawMessage
			if raw, ok := group.get("hooks"); ok {
				if err := json.Unmarshal(raw, &list); err != nil {
					return nil, false, fmt.Errorf("a hooks.%s entry's hooks is not a list (%v)", event, err)
				}
			}
			for _, hk := range list {
				if isOurHookEntry(hk, client) {
					replaced = true
					continue
				}
				rest = append(rest, hk)
			}
			switch {
			case len(rest) == len(list):
				kept = append(kept, it)
			case len(rest) > 0:
				b, _ := marshalNoEscape(rest)
				group.set("hooks", b)
				kept = append(kept, group.marshal())
			}
		}
		kept = append(kept, ours)
		b, _ := marshalNoEscape(kept)
		lists[event] = b
		hooks.set(event, b)
	}
	if plain {
		for _, k := range []string{"version"} {
			if _, ok := root.get(k); !ok && top[k] != nil {
				b, _ := marshalNoEscape(top[k])
				root.keys = append([]string{k}, root.keys...)
				if root.vals == nil {
					root.vals = map[string]json.RawMessage{}
				}
				root.vals[k] = b
			}
		}
		root.set("hooks", hooks.marshal())
		var buf bytes.Buffer
		if err := json.Indent(&buf, root.marshal(), "", "  "); err != nil {
			return nil, false, err
		}
		buf.WriteByte('\n')
		return buf.Bytes(), replaced, nil
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, false, errors.New("the top level is not an object")
	}
	type op struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	var patch []op
	for k, val := range top {
		if _, ok := root.get(k); !ok {
			b, _ := marshalNoEscape(val)
			patch = append(patch, op{"add", "/" + jsonPointerEscape(k), b})
		}
	}
	if !hadHooks {
		patch = append(patch, op{"add", "/hooks", hooks.marshal()})
	} else {
		for _, event := range events {
			patch = append(patch, op{"add", "/hooks/" + jsonPointerEscape(event), lists[event]})
		}
	}
	p, _ := json.Marshal(patch)
	if err := v.Patch(p); err != nil {
		return nil, false, fmt.Errorf("cannot add the hooks (%v)", err)
	}
	// What was added is compact (hujson's layout of a patched value would
	// shift on every write); the rest stays as it was.
	out := v.Pack()
	// Check it reads back with our hook in every event's list.
	if st := hookStateOf(out, client, events, grouped); !st {
		return nil, false, errors.New(`cannot merge cleanly: "hooks" or an event appears more than once`)
	}
	return out, replaced, nil
}

// isOurHookEntry tells Ireneo's hook entry apart from anyone else's.
func isOurHookEntry(raw json.RawMessage, client string) bool {
	var one struct {
		Command string `json:"command"`
		Bash    string `json:"bash"`
	}
	if json.Unmarshal(raw, &one) != nil {
		return false
	}
	return isOurHookCommand(one.Command, client) || isOurHookCommand(one.Bash, client)
}

// hookStateOf reports whether every event of the document (JSON, or JSON
// with comments) has Ireneo's hook.
func hookStateOf(doc []byte, client string, events []string, grouped bool) bool {
	missing, err := missingHooks(doc, client, events, grouped)
	return err == nil && len(missing) == 0
}

// missingHooks are the events of the document without Ireneo's hook.
func missingHooks(doc []byte, client string, events []string, grouped bool) ([]string, error) {
	std, err := hujson.Standardize(bytes.Clone(doc))
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if len(bytes.TrimSpace(std)) > 0 {
		if err := json.Unmarshal(std, &cfg); err != nil {
			return nil, err
		}
	}
	var missing []string
	for _, event := range events {
		found := false
		for _, it := range cfg.Hooks[event] {
			if !grouped {
				found = found || isOurHookEntry(it, client)
				continue
			}
			var g struct {
				Hooks []json.RawMessage `json:"hooks"`
			}
			if json.Unmarshal(it, &g) == nil {
				for _, hk := range g.Hooks {
					found = found || isOurHookEntry(hk, client)
				}
			}
		}
		if !found {
			missing = append(missing, event)
		}
	}
	return missing, nil
}

// sourceHooksInstalled is HooksInstalled for the clients above.
func sourceHooksInstalled(client string, o ConnectOptions) HookState {
	st := HookState{Client: client}
	var err error
	if st.Path, err = hookPath(client, o); err != nil {
		st.Problem = err.Error()
		return st
	}
	data, err := os.ReadFile(st.Path)
	if errors.Is(err, fs.ErrNotExist) {
		if client != ClientOpenCode {
			st.Missing = append([]string(nil), HookEvents(client)...)
		}
		return st
	}
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	if client == ClientOpenCode {
		st.Installed = bytes.HasPrefix(data, []byte(openCodePluginMark)) && bytes.Contains(data, []byte(`"hook","`+ClientOpenCode+`"]`))
		return st
	}
	st.Missing, err = missingHooks(data, client, HookEvents(client), client == ClientGeminiCLI)
	if err != nil {
		st.Problem = fmt.Sprintf("%s is not valid JSON: %v", st.Path, err)
		return st
	}
	st.Installed = len(st.Missing) == 0
	return st
}

// DefaultGeminiRetention is how long Gemini CLI keeps a session when
// general.sessionRetention does not say (0.5x and later: on, 30 days).
const DefaultGeminiRetention = 30 * 24 * time.Hour

// GeminiRetention reads Gemini CLI's general.sessionRetention: whether it
// deletes old sessions and after how long (maxAge: a number and h, d, w
// or m, a month being 30 days).
func GeminiRetention(o ConnectOptions) (bool, time.Duration, error) {
	path, err := GeminiSettingsPath(o)
	if err != nil {
		return false, 0, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true, DefaultGeminiRetention, nil
	}
	if err != nil {
		return false, 0, err
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return false, 0, fmt.Errorf("%s is not valid JSON: %v", path, err)
	}
	var cfg struct {
		General struct {
			SessionRetention struct {
				Enabled *bool  `json:"enabled"`
				MaxAge  string `json:"maxAge"`
			} `json:"sessionRetention"`
		} `json:"general"`
	}
	if err := json.Unmarshal(std, &cfg); err != nil {
		return false, 0, fmt.Errorf("%s is not valid JSON: %v", path, err)
	}
	r := cfg.General.SessionRetention
	if r.Enabled != nil && !*r.Enabled {
		return false, 0, nil
	}
	if r.MaxAge == "" {
		return true, DefaultGeminiRetention, nil
	}
	m := regexp.MustCompile(`^(\d+)([hdwm])$`).FindStringSubmatch(r.MaxAge)
	if m == nil {
		return false, 0, nil // Gemini CLI turns cleanup off when it cannot read maxAge
	}
	n, _ := strconv.Atoi(m[1])
	unit := map[string]time.Duration{"h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour, "m": 30 * 24 * time.Hour}[m[2]]
	if n == 0 {
		return false, 0, nil
	}
	return true, time.Duration(n) * unit, nil
}

// labels are the clients' names as people know them.
var labels = map[string]string{
	ClientClaudeDesktop: "Claude Desktop", ClientClaudeCode: "Claude Code", ClientCodex: "Codex", ClientCursor: "Cursor",
	ClientVSCode: "VS Code", ClientGeminiCLI: "Gemini CLI", ClientOpenCode: "opencode", ClientCopilotCLI: "Copilot CLI",
}

// Label is client's name as people know it.
func Label(client string) string {
	if l, ok := labels[client]; ok {
		return l
	}
	return client
}

// HookClientsHere are the clients whose capture hooks are worth a line:
// Claude Code and Codex always, the others when their folder is on this
// machine.
func HookClientsHere(o ConnectOptions) []string {
	out := []string{ClientClaudeCode, ClientCodex}
	for _, c := range HookClients[2:] {
		p, err := hookPath(c, o)
		if err != nil {
			continue
		}
		dir := filepath.Dir(p)
		if c == ClientCopilotCLI || c == ClientOpenCode {
			dir = filepath.Dir(dir) // hooks/ and plugins/ may not be there yet
		}
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			out = append(out, c)
		}
	}
	return out
}
