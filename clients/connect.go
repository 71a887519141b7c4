package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/tailscale/hujson"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/mcpserver"
)

// Clients Ireneo can connect, by the name `ireneo connect` takes.
const (
	ClientClaudeDesktop = "claude-desktop"
	ClientClaudeCode    = "claude-code"
	ClientCodex         = "codex"
	ClientCursor        = "cursor"
	ClientVSCode        = "vscode"
)

// Clients lists the supported client names.
var Clients = []string{ClientClaudeDesktop, ClientClaudeCode, ClientCodex, ClientCursor, ClientVSCode}

// ServerName is the name of Ireneo's entry in a client's configuration.
const ServerName = "ireneo"

// Transports a client config can use.
const (
	TransportHTTP  = "http"
	TransportStdio = "stdio"
)

// ConnectOptions says what to connect a client to. Zero fields take
// defaults from the running user's environment.
type ConnectOptions struct {
	URL     string // the MCP endpoint; default mcpserver.URLFor(mcpserver.DefaultAddr)
	Token   string // the bearer secret, for HTTP clients
	Command string // the ireneo binary, for stdio clients; default this executable
	// MemoryDir is the memory the person uses. Stdio entries always pass it
	// as --memory (absolute): a client starts `ireneo mcp` with a bare
	// environment, where $IRENEO_HOME and the person's XDG dirs are unset.
	// It is required for stdio clients.
	MemoryDir string
	// TokenName and TokenStore (the --token-store kind, "" for the keyring)
	// name the token for SafeCommand, which reads the secret at run time.
	TokenName  string
	TokenStore string
	Home       string // the user's home directory; default os.UserHomeDir
	// ClaudeConfigDir and CodexHome are $CLAUDE_CONFIG_DIR and $CODEX_HOME,
	// where those clients keep their configuration when told to; "" means
	// their defaults under Home.
	ClaudeConfigDir string
	CodexHome       string
	ConfigDir       string // the user's config directory; default os.UserConfigDir
	// GeminiHome, CopilotHome and XDGConfigHome are $GEMINI_CLI_HOME,
	// $COPILOT_HOME and $XDG_CONFIG_HOME (opencode's); "" means those
	// variables, else the defaults under Home.
	GeminiHome    string
	CopilotHome   string
	XDGConfigHome string
	// Transport is TransportStdio for an entry that starts `ireneo mcp`
	// (Gemini CLI, opencode, Copilot CLI, Cursor); "" is the client's own.
	Transport string
}

// ClientConfig is how one client reaches Ireneo: the exact text for its
// config file, the command that adds it when the client has one, and where
// the file lives.
type ClientConfig struct {
	Client    string `json:"client"`
	Transport string `json:"transport"`
	Path      string `json:"path"`              // the client's config file
	Snippet   string `json:"snippet"`           // the entry, in the file's own format
	Command   string `json:"command,omitempty"` // a shell command that adds it instead; the secret is in it
	// SafeCommand is Command with the secret read from Ireneo's token store
	// when the shell runs it, so the secret stays out of shell history.
	SafeCommand string `json:"safe_command,omitempty"`
	Note        string `json:"note,omitempty"`

	format string          // "json", "jsonc" (comments and trailing commas allowed) or "toml"
	key    string          // JSON: the object that holds servers ("mcpServers", "servers")
	entry  json.RawMessage // JSON: Ireneo's entry
}

// Connect builds the configuration for client.
func Connect(client string, o ConnectOptions) (*ClientConfig, error) {
	if o.URL == "" {
		o.URL = mcpserver.URLFor(mcpserver.DefaultAddr)
	}
	if o.Home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("connect %s: no home directory: %w", client, err)
		}
		o.Home = h
	}
	if o.ConfigDir == "" {
		d, err := os.UserConfigDir()
		if err != nil {
			d = filepath.Join(o.Home, ".config")
		}
		o.ConfigDir = d
	}
	if o.Command == "" {
		o.Command = "ireneo"
		if exe, err := os.Executable(); err == nil {
			o.Command = exe
		}
	}
	needToken := func() error {
		if o.Token == "" {
			return fmt.Errorf("connect %s: it connects over HTTP and needs a token; make one with `ireneo token create %s`", client, client)
		}
		return nil
	}
	auth := map[string]string{"Authorization": "Bearer " + o.Token}
	c := &ClientConfig{Client: client, format: "json"}
	entry, handled, err := connectSource(client, o, c, auth, needToken)
	if err != nil {
		return nil, err
	}
	switch {
	case handled:
	case o.Transport == TransportStdio && client != ClientClaudeDesktop:
		return nil, fmt.Errorf("connect %s: it connects over HTTP only here; stdio entries are for Claude Desktop, Cursor, Gemini CLI, opencode and Copilot CLI", client)
	default:
		entry, err = connectBuiltin(client, o, c, auth, needToken)
		if err != nil {
			return nil, err
		}
		if entry == nil {
			return c, nil // Codex: its snippet is TOML, written already
		}
	}
	raw, err := marshalNoEscape(entry)
	if err != nil {
		return nil, err
	}
	c.entry = raw
	snippet, err := marshalNoEscape(map[string]any{c.key: map[string]json.RawMessage{ServerName: raw}})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	json.Indent(&buf, snippet, "", "  ")
	c.Snippet = buf.String() + "\n"
	return c, nil
}

// connectBuiltin builds the entry of the clients Ireneo connected first;
// nil with no error for Codex, whose snippet it writes itself.
func connectBuiltin(client string, o ConnectOptions, c *ClientConfig, auth map[string]string, needToken func() error) (any, error) {
	var entry any
	switch client {
	case ClientClaudeDesktop:
		// Claude Desktop's config file only starts local processes.
		if o.MemoryDir == "" {
			return nil, fmt.Errorf("connect %s: it starts `ireneo mcp` itself and must be told which memory to serve; give --memory DIR", client)
		}
		dir, err := filepath.Abs(o.MemoryDir)
		if err != nil {
			return nil, fmt.Errorf("connect %s: memory directory %s: %w", client, o.MemoryDir, err)
		}
		args := []string{"--memory", dir, "mcp"}
		c.Transport, c.key = TransportStdio, "mcpServers"
		c.Path = filepath.Join(o.ConfigDir, "Claude", "claude_desktop_config.json")
		entry = map[string]any{"command": o.Command, "args": args}
		c.Note = "Claude Desktop starts `ireneo mcp` itself (stdio, the whole memory, audited as \"stdio\"). Restart Claude Desktop after writing."
	case ClientClaudeCode:
		if err := needToken(); err != nil {
			return nil, err
		}
		c.Transport, c.key = TransportHTTP, "mcpServers"
		dir := o.Home
		if o.ClaudeConfigDir != "" {
			dir = o.ClaudeConfigDir
		}
		c.Path = filepath.Join(dir, ".claude.json")
		entry = map[string]any{"type": "http", "url": o.URL, "headers": auth}
		c.Command = fmt.Sprintf("claude mcp add --transport http --scope user %s %s --header %s",
			ServerName, shellQuote(o.URL), shellQuote("Authorization: Bearer "+o.Token))
		if sub := secretCommand(o); sub != "" {
			c.SafeCommand = fmt.Sprintf("claude mcp add --transport http --scope user %s %s --header \"Authorization: Bearer $(%s)\"",
				ServerName, shellQuote(o.URL), sub)
		}
		c.Note = "Keep `ireneo serve` (or the tray app) running; Claude Code connects to it over loopback HTTP."
	case ClientCodex:
		if err := needToken(); err != nil {
			return nil, err
		}
		c.Transport, c.format = TransportHTTP, "toml"
		dir := filepath.Join(o.Home, ".codex")
		if o.CodexHome != "" {
			dir = o.CodexHome
		}
		c.Path = filepath.Join(dir, "config.toml")
		c.Snippet = fmt.Sprintf("[mcp_servers.%s]\nurl = %s\nhttp_headers = { \"Authorization\" = %s }\n",
			ServerName, tomlString(o.URL), tomlString("Bearer "+o.Token))
		c.Note = "Keep `ireneo serve` (or the tray app) running; Codex connects to it over loopback HTTP."
		return nil, nil
	case ClientCursor:
		if err := needToken(); err != nil {
			return nil, err
		}
		// Cursor reads mcp.json as JSON with comments.
		c.Transport, c.key, c.format = TransportHTTP, "mcpServers", "jsonc"
		c.Path = filepath.Join(o.Home, ".cursor", "mcp.json")
		entry = map[string]any{"url": o.URL, "headers": auth}
		c.Note = "Keep `ireneo serve` (or the tray app) running; Cursor connects to it over loopback HTTP."
	case ClientVSCode:
		if err := needToken(); err != nil {
			return nil, err
		}
		// VS Code's mcp.json is JSON with comments and trailing commas.
		c.Transport, c.key, c.format = TransportHTTP, "servers", "jsonc"
		c.Path = filepath.Join(o.ConfigDir, "Code", "User", "mcp.json")
		entry = map[string]any{"type": "http", "url": o.URL, "headers": auth}
		add, _ := marshalNoEscape(map[string]any{"name": ServerName, "type": "http", "url": o.URL, "headers": auth})
		c.Command = "code --add-mcp " + shellQuote(string(add))
		c.Note = "Keep `ireneo serve` (or the tray app) running; VS Code connects to it over loopback HTTP."
	default:
		return nil, fmt.Errorf("unknown client %q: choose one of %s", client, strings.Join(Clients, ", "))
	}
	return entry, nil
}

// WriteResult says what Write did.
type WriteResult struct {
	Path     string `json:"path"`
	Backup   string `json:"backup,omitempty"` // "" when there was no file before
	Replaced bool   `json:"replaced"`         // an earlier Ireneo entry was replaced
}

// Write merges the entry into the client's config file: the file is backed
// up first (PATH.ireneo-backup-<UTC time>), every other server and setting
// is kept, and an earlier Ireneo entry is replaced. A file Ireneo cannot
// parse safely is left alone with an error. A config that is a symlink (a
// dotfiles checkout, say) is written through: its target changes, the link
// stays. The file and its backup are 0600, as either may hold a token's
// secret.
func (c *ClientConfig) Write(now time.Time) (WriteResult, error) {
	res, _, err := c.WriteWithHooks(nil, now)
	return res, err
}

// WriteWithHooks writes the entry as Write does and, when h is not nil, the
// capture hooks as h.Write does. When both go in one file (Codex's
// config.toml) the file is read once, merged with both, backed up once and
// written once: its backup is the file as it was, not a copy made half-way.
// When the hooks go elsewhere and fail after the entry was written, the
// error is a *HooksNotWrittenError.
func (c *ClientConfig) WriteWithHooks(h *HookConfig, now time.Time) (WriteResult, WriteResult, error) {
	res, hres := WriteResult{Path: c.Path}, WriteResult{}
	target, err := writeTarget(c.Path)
	if err != nil {
		return res, hres, err
	}
	hookTarget := ""
	if h != nil {
		hres.Path = h.Path
		if hookTarget, err = hooksTarget(h.Path); err != nil {
			return res, hres, err
		}
	}
	old, err := os.ReadFile(target)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, hres, fmt.Errorf("read %s: %w", c.Path, err)
	}
	out, replaced, err := c.merge(old)
	if err != nil {
		return res, hres, fmt.Errorf("%s: %w; add the entry by hand instead", c.Path, err)
	}
	res.Replaced = replaced
	together := h != nil && hookTarget == target
	if together {
		if out, hres.Replaced, err = h.merge(out); err != nil {
			return res, hres, fmt.Errorf("%s: %w; add the hook by hand instead", h.Path, err)
		}
	}
	if exists {
		res.Backup, err = writeBackup(c.Path, old, now)
		if err != nil {
			return res, hres, err
		}
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return res, hres, fmt.Errorf("write %s: %w", c.Path, err)
	}
	if err := funes.WriteFileAtomic(target, out, secretFileMode); err != nil {
		return res, hres, fmt.Errorf("write %s: %w", c.Path, err)
	}
	// WriteFileAtomic may keep an existing file's mode; a secret needs 0600.
	if err := os.Chmod(target, secretFileMode); err != nil {
		return res, hres, fmt.Errorf("write %s: %w", c.Path, err)
	}
	switch {
	case together:
		hres.Backup = res.Backup
	case h != nil:
		if hres, err = h.Write(now); err != nil {
			return res, hres, &HooksNotWrittenError{Err: err}
		}
	}
	return res, hres, nil
}

// HooksNotWrittenError says the server entry was written and the capture
// hooks, which go in another file, were not.
type HooksNotWrittenError struct{ Err error }

func (e *HooksNotWrittenError) Error() string { return e.Err.Error() }
func (e *HooksNotWrittenError) Unwrap() error { return e.Err }

// writeTarget is the file a config at path is written to: a symlink's
// target (a dotfiles checkout, say), also when that file is not made yet.
func writeTarget(path string) (string, error) { return linkTarget(path, true) }

// linkTarget resolves path's symlinks; dangling says whether a link to a
// file not made yet is followed to where it points.
func linkTarget(path string, dangling bool) (string, error) {
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		return resolved, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("follow %s: %w", path, err)
	}
	if link, err := os.Readlink(path); err == nil && dangling {
		// A link to a file not made yet: create the file where it points.
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		return link, nil
	}
	return path, nil
}

// merge puts Ireneo's entry into the config file's old bytes.
func (c *ClientConfig) merge(old []byte) ([]byte, bool, error) {
	switch c.format {
	case "toml":
		return mergeTOML(old, c.Snippet)
	case "jsonc":
		return mergeJSONC(old, c.key, c.entry)
	default:
		return mergeJSON(old, c.key, c.entry)
	}
}

// secretFileMode is the mode of every file Ireneo writes a secret into.
const secretFileMode fs.FileMode = 0o600

// writeBackup copies a config file's old bytes beside it, named for the
// time, never overwriting an earlier backup. It is 0600 whatever the
// original's mode: it may hold an earlier token's secret.
func writeBackup(path string, old []byte, now time.Time) (string, error) {
	base := path + ".ireneo-backup-" + now.UTC().Format("20060102-150405")
	name := base
	for i := 2; ; i++ {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, secretFileMode)
		if errors.Is(err, fs.ErrExist) {
			name = fmt.Sprintf("%s-%d", base, i)
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(old)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
}

// mergeJSONC sets obj[key][ServerName] = entry in a JSON-with-comments
// document (VS Code's), keeping its comments, trailing commas and layout.
func mergeJSONC(old []byte, key string, entry json.RawMessage) ([]byte, bool, error) {
	if len(bytes.TrimSpace(old)) == 0 || json.Valid(old) {
		// Plain JSON (no comment, no trailing comma) is merged as JSON: the
		// same layout whichever way it is read, and written again the same.
		return mergeJSON(old, key, entry)
	}
	v, err := hujson.Parse(old)
	if err != nil {
		return nil, false, fmt.Errorf("not valid JSON with comments (%v)", err)
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, false, errors.New("the top level is not an object")
	}
	ptr := "/" + jsonPointerEscape(key)
	type op struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	var patch op
	replaced := false
	switch servers := v.Find(ptr); {
	case servers == nil || servers.Value.Kind() == 'n':
		obj, _ := marshalNoEscape(map[string]json.RawMessage{ServerName: entry})
		patch = op{"add", ptr, obj}
	case servers.Value.Kind() != '{':
		return nil, false, fmt.Errorf("%q is not a JSON object", key)
	default:
		replaced = servers.Find("/"+ServerName) != nil
		patch = op{"add", ptr + "/" + ServerName, entry}
	}
	p, err := json.Marshal([]op{patch})
	if err != nil {
		return nil, false, err
	}
	if err := v.Patch(p); err != nil {
		return nil, false, fmt.Errorf("cannot add the entry (%v)", err)
	}
	out := v.Pack()
	// Check the result reads back as the JSON it should be.
	std, err := hujson.Standardize(bytes.Clone(out))
	if err != nil || !json.Valid(std) {
		return nil, false, fmt.Errorf("merged file would not be valid (%v)", err)
	}
	// A reader takes the last of duplicate keys; the patch changed the first.
	var after map[string]json.RawMessage
	var servers map[string]json.RawMessage
	if json.Unmarshal(std, &after) != nil || json.Unmarshal(after[key], &servers) != nil || servers[ServerName] == nil {
		return nil, false, fmt.Errorf("cannot merge cleanly: %q or %q appears more than once", key, ServerName)
	}
	var got, want any
	json.Unmarshal(servers[ServerName], &got)
	json.Unmarshal(entry, &want)
	if !reflect.DeepEqual(got, want) {
		return nil, false, fmt.Errorf("cannot merge cleanly: %q or %q appears more than once", key, ServerName)
	}
	return out, replaced, nil
}

func jsonPointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// secretCommand is the shell command that prints the token's secret from
// Ireneo's token store, for $(…) in SafeCommand; "" without a token name.
func secretCommand(o ConnectOptions) string {
	if o.TokenName == "" {
		return ""
	}
	exe := o.Command
	if exe == "" {
		exe = "ireneo"
	}
	parts := []string{shellQuote(exe)}
	if o.MemoryDir != "" {
		if dir, err := filepath.Abs(o.MemoryDir); err == nil {
			parts = append(parts, "--memory", shellQuote(dir))
		}
	}
	parts = append(parts, "token", "secret", shellQuote(o.TokenName))
	if o.TokenStore != "" {
		parts = append(parts, "--token-store", shellQuote(o.TokenStore))
	}
	return strings.Join(parts, " ")
}

// mergeJSON sets obj[key][ServerName] = entry in the JSON document old,
// keeping every other key, in its order.
func mergeJSON(old []byte, key string, entry json.RawMessage) ([]byte, bool, error) {
	root := &jsonObject{}
	if len(bytes.TrimSpace(old)) > 0 {
		var err error
		if root, err = parseJSONObject(old); err != nil {
			return nil, false, fmt.Errorf("not a plain JSON object (%v)", err)
		}
	}
	servers := &jsonObject{}
	if raw, ok := root.get(key); ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		var err error
		if servers, err = parseJSONObject(raw); err != nil {
			return nil, false, fmt.Errorf("%q is not a JSON object (%v)", key, err)
		}
	}
	replaced := servers.set(ServerName, entry)
	root.set(key, servers.marshal())
	var buf bytes.Buffer
	if err := json.Indent(&buf, root.marshal(), "", "  "); err != nil {
		return nil, false, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), replaced, nil
}

// jsonObject is a JSON object that remembers its key order, so a merge
// rewrites someone's config without shuffling it.
type jsonObject struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseJSONObject(data []byte) (*jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("the top level is not an object")
	}
	o := &jsonObject{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, ok := tok.(string)
		if !ok {
			return nil, errors.New("bad key")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(k, v)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the object")
	}
	return o, nil
}

func (o *jsonObject) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// set stores k and reports whether it replaced a value.
func (o *jsonObject) set(k string, v json.RawMessage) bool {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	_, had := o.vals[k]
	if !had {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
	return had
}

func (o *jsonObject) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := marshalNoEscape(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// tomlTable matches a table header line.
var tomlTable = regexp.MustCompile(`^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$`)

// ourTable matches the name of Ireneo's table or one of its subtables.
var ourTable = regexp.MustCompile(`^mcp_servers\s*\.\s*("ireneo"|'ireneo'|ireneo)\s*(\..*)?$`)

// mergeTOML replaces Ireneo's [mcp_servers.ireneo] table in a TOML
// document, or appends it, touching no other line; comments and layout of
// the rest survive. The result is parsed before it is returned.
func mergeTOML(old []byte, snippet string) ([]byte, bool, error) {
	var before map[string]any
	if _, err := toml.Decode(string(old), &before); err != nil {
		return nil, false, fmt.Errorf("not valid TOML (%v)", err)
	}
	var kept []string
	replaced, skipping := false, false
	lines := strings.SplitAfter(string(old), "\n")
	for _, ln := range lines {
		if m := tomlTable.FindStringSubmatch(strings.TrimRight(ln, "\r\n")); m != nil {
			skipping = ourTable.MatchString(m[1])
			replaced = replaced || skipping
		}
		if !skipping {
			kept = append(kept, ln)
		}
	}
	rest := strings.Join(kept, "")
	var check map[string]any
	if _, err := toml.Decode(rest, &check); err != nil {
		return nil, false, fmt.Errorf("cannot take out the old %s entry cleanly (%v)", ServerName, err)
	}
	if servers, ok := check["mcp_servers"].(map[string]any); ok {
		if _, ok := servers[ServerName]; ok {
			return nil, false, fmt.Errorf("mcp_servers.%s is defined in a form Ireneo does not edit (dotted keys or an inline table); remove it first", ServerName)
		}
	}
	// One blank line between the rest and our table, however often we write.
	rest = strings.TrimRight(rest, " \t\r\n")
	if rest != "" {
		rest += "\n\n"
	}
	out := rest + snippet
	var after map[string]any
	if _, err := toml.Decode(out, &after); err != nil {
		return nil, false, fmt.Errorf("merged file would not be valid TOML (%v)", err)
	}
	return []byte(out), replaced, nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// tomlString quotes s as a TOML basic string; JSON's escapes are valid TOML.
func tomlString(s string) string {
	b, _ := marshalNoEscape(s)
	return string(b)
}

// ShellQuote quotes s for a POSIX shell, as the commands connect prints do.
func ShellQuote(s string) string { return shellQuote(s) }

// shellQuote quotes s for a POSIX shell (or PowerShell, where single quotes
// work the same for these values).
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	if runtime.GOOS == "windows" {
		return `'` + strings.ReplaceAll(s, `'`, `''`) + `'`
	}
	return `'` + strings.ReplaceAll(s, `'`, `'\''`) + `'`
}
