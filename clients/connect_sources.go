package clients

import (
	"fmt"
	"os"
	"path/filepath"
)

// The clients added with issue 31: Gemini CLI, opencode and GitHub Copilot
// CLI, each with its own file and shape, read here from their own CLIs
// (`gemini mcp add`, `copilot mcp add` write these entries; `opencode`
// reads its config's "mcp"), and each connected over loopback HTTP with the
// token's header, or started as `ireneo mcp` when asked for stdio.
const (
	ClientGeminiCLI  = "gemini-cli"
	ClientOpenCode   = "opencode"
	ClientCopilotCLI = "copilot-cli"
)

func init() {
	Clients = append(Clients, ClientGeminiCLI, ClientOpenCode, ClientCopilotCLI)
}

// GeminiSettingsPath is Gemini CLI's user settings:
// $GEMINI_CLI_HOME/.gemini/settings.json, else ~/.gemini/settings.json.
func GeminiSettingsPath(o ConnectOptions) (string, error) {
	home := o.GeminiHome
	if home == "" {
		home = os.Getenv("GEMINI_CLI_HOME")
	}
	if home == "" {
		var err error
		if home, err = homeOf(o); err != nil {
			return "", err
		}
	}
	return filepath.Join(home, ".gemini", "settings.json"), nil
}

// OpenCodeConfigPath is opencode's global config: opencode.jsonc when
// there is one, else opencode.json, in $XDG_CONFIG_HOME/opencode (default
// ~/.config/opencode, on every platform: opencode follows XDG).
func OpenCodeConfigPath(o ConnectOptions) (string, error) {
	dir := o.XDGConfigHome
	if dir == "" {
		dir = os.Getenv("XDG_CONFIG_HOME")
	}
	if dir == "" {
		home, err := homeOf(o)
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".config")
	}
	dir = filepath.Join(dir, "opencode")
	for _, name := range []string{"opencode.jsonc", "opencode.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return filepath.Join(dir, name), nil
		}
	}
	return filepath.Join(dir, "opencode.json"), nil
}

// CopilotHome is Copilot CLI's folder: $COPILOT_HOME, else ~/.copilot.
func CopilotHome(o ConnectOptions) (string, error) {
	if o.CopilotHome != "" {
		return o.CopilotHome, nil
	}
	if h := os.Getenv("COPILOT_HOME"); h != "" {
		return h, nil
	}
	home, err := homeOf(o)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".copilot"), nil
}

// connectSource builds the entry of one of the clients above (and Cursor's
// stdio entry); handled is false for a client it does not know.
func connectSource(client string, o ConnectOptions, c *ClientConfig, auth map[string]string, needToken func() error) (entry any, handled bool, err error) {
	switch client {
	case ClientGeminiCLI, ClientOpenCode, ClientCopilotCLI:
	case ClientCursor:
		if o.Transport != TransportStdio {
			return nil, false, nil // the HTTP entry is connect.go's
		}
	default:
		return nil, false, nil
	}
	stdio := o.Transport == TransportStdio
	var args []string
	if stdio {
		if o.MemoryDir == "" {
			return nil, true, fmt.Errorf("connect %s --stdio: it starts `ireneo mcp` itself and must be told which memory to serve; give --memory DIR", client)
		}
		dir, err := filepath.Abs(o.MemoryDir)
		if err != nil {
			return nil, true, fmt.Errorf("connect %s: memory directory %s: %w", client, o.MemoryDir, err)
		}
		args = []string{"--memory", dir, "mcp"}
		c.Transport = TransportStdio
	} else {
		if err := needToken(); err != nil {
			return nil, true, err
		}
		c.Transport = TransportHTTP
	}
	keep := "Keep `ireneo serve` (or the tray app) running; %s connects to it over loopback HTTP."
	starts := "%s starts `ireneo mcp` itself (stdio, the whole memory, audited as \"stdio\")."
	note := func(name string) string {
		if stdio {
			return fmt.Sprintf(starts, name)
		}
		return fmt.Sprintf(keep, name)
	}
	switch client {
	case ClientGeminiCLI:
		// settings.json is read with its comments stripped: JSON with comments.
		c.key, c.format = "mcpServers", "jsonc"
		if c.Path, err = GeminiSettingsPath(o); err != nil {
			return nil, true, err
		}
		if stdio {
			entry = map[string]any{"command": o.Command, "args": args}
		} else {
			entry = map[string]any{"url": o.URL, "type": "http", "headers": auth}
			c.Command = fmt.Sprintf("gemini mcp add --scope user --transport http %s %s --header %s",
				ServerName, shellQuote(o.URL), shellQuote("Authorization: Bearer "+o.Token))
			if sub := secretCommand(o); sub != "" {
				c.SafeCommand = fmt.Sprintf("gemini mcp add --scope user --transport http %s %s --header \"Authorization: Bearer $(%s)\"",
					ServerName, shellQuote(o.URL), sub)
			}
		}
		c.Note = note("Gemini CLI") + " `gemini mcp list` shows it."
	case ClientOpenCode:
		c.key, c.format = "mcp", "jsonc"
		if c.Path, err = OpenCodeConfigPath(o); err != nil {
			return nil, true, err
		}
		if stdio {
			entry = map[string]any{"type": "local", "command": append([]string{o.Command}, args...), "enabled": true}
		} else {
			entry = map[string]any{"type": "remote", "url": o.URL, "headers": auth, "enabled": true}
		}
		c.Note = note("opencode") + " `opencode mcp list` shows it."
	case ClientCopilotCLI:
		c.key, c.format = "mcpServers", "jsonc"
		home, err := CopilotHome(o)
		if err != nil {
			return nil, true, err
		}
		c.Path = filepath.Join(home, "mcp-config.json")
		if stdio {
			entry = map[string]any{"type": "local", "command": o.Command, "args": args, "tools": []string{"*"}}
		} else {
			entry = map[string]any{"type": "http", "url": o.URL, "headers": auth, "tools": []string{"*"}}
			c.Command = fmt.Sprintf("copilot mcp add --transport http %s %s --header %s",
				ServerName, shellQuote(o.URL), shellQuote("Authorization: Bearer "+o.Token))
			if sub := secretCommand(o); sub != "" {
				c.SafeCommand = fmt.Sprintf("copilot mcp add --transport http %s %s --header \"Authorization: Bearer $(%s)\"",
					ServerName, shellQuote(o.URL), sub)
			}
		}
		c.Note = note("Copilot CLI") + " `copilot mcp list` shows it."
	case ClientCursor:
		c.key, c.format = "mcpServers", "jsonc"
		c.Path = filepath.Join(o.Home, ".cursor", "mcp.json")
		entry = map[string]any{"command": o.Command, "args": args}
		c.Note = note("Cursor")
	default:
		return nil, false, nil
	}
	return entry, true, nil
}
