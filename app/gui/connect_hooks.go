package gui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/clients"
)

// The capture hooks on the Claude Code and Codex cards: a checkbox, on by
// default, that makes Write also install the hooks that import each session
// as it ends, so none is lost when the tray app is not running.

var hookExplain = map[string]string{
	clients.ClientClaudeCode: "Adds SessionEnd, PreCompact and Stop hooks to Claude Code's settings.json. Each imports the session it " +
		"names in the background, so a session reaches Ireneo even when this app is closed, before Claude Code deletes old sessions " +
		"(after 30 days unless cleanupPeriodDays says otherwise). They never slow Claude Code down; problems show on the Import screen.",
	clients.ClientCodex: "Sets Codex's notify program in config.toml to import each session after a turn, in the background, so a " +
		"session reaches Ireneo even when this app is closed. A notify program you already have keeps running after it.",
	clients.ClientGeminiCLI: "Adds SessionEnd, PreCompress and AfterAgent hooks to Gemini CLI's settings.json, which import each session " +
		"in the background, so it reaches Ireneo even when this app is closed, before Gemini CLI deletes old sessions (after 30 days " +
		"unless general.sessionRetention says otherwise).",
	clients.ClientCursor: "Adds sessionEnd and stop hooks to ~/.cursor/hooks.json (the editor's and cursor-agent's), which import each " +
		"conversation in the background, so it reaches Ireneo even when this app is closed. Your other hooks stay.",
	clients.ClientCopilotCLI: "Adds a hooks file of Ireneo's own (~/.copilot/hooks/ireneo.json: sessionEnd, agentStop) that imports each " +
		"session in the background, so it reaches Ireneo even when this app is closed.",
	clients.ClientOpenCode: "Adds a plugin of Ireneo's own (~/.config/opencode/plugins/ireneo-capture.js) that imports each session " +
		"in the background when it goes idle or is compacted, so it reaches Ireneo even when this app is closed.",
}

func (c *connectScreen) hooksCheck(client string) fyne.CanvasObject {
	chk := widget.NewCheck("Also capture each session as it ends (hooks)", nil)
	chk.SetChecked(true)
	c.hooks[client] = chk
	why := newMuted(hookExplain[client])
	why.Wrapping = fyne.TextWrapWord
	return container.NewVBox(chk, why)
}

// hookConfig is the client's capture hooks when its box is ticked, else nil.
func (c *connectScreen) hookConfig(client string) *clients.HookConfig {
	chk := c.hooks[client]
	if chk == nil || !chk.Checked {
		return nil
	}
	h, err := clients.Hooks(client, c.hookOptions())
	if err != nil {
		fyne.LogError("capture hooks for "+client, err)
		return nil
	}
	return h
}

// hookOptions are the options for hooks and their state.
func (c *connectScreen) hookOptions() clients.ConnectOptions {
	return clients.ConnectOptions{MemoryDir: c.u.mem.Dir(), Home: c.u.deps.Home,
		ClaudeConfigDir: c.u.deps.ToolHomes.ClaudeCode, CodexHome: c.u.deps.ToolHomes.Codex}
}
