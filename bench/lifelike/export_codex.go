package lifelike

// Codex CLI rollouts: sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl, envelope lines.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"
)

type codexLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   any    `json:"payload"`
}

func (d *Dataset) writeCodex(dir string) error {
	for _, c := range d.sortedConvs(hCodex) {
		if err := d.codexSession(dir, c); err != nil {
			return err
		}
	}
	return nil
}

func codexPath(dir string, c *convPlan) string {
	lt := c.start.In(localZone)
	return filepath.Join(dir, lt.Format("2006"), lt.Format("01"), lt.Format("02"),
		fmt.Sprintf("rollout-%s-%s.jsonl", lt.Format("2006-01-02T15-04-05"), c.id))
}

func (d *Dataset) codexSession(dir string, c *convPlan) error {
	cv := d.render(c)
	r := seedRand(d.cfg.Seed, 5<<40+uint64(c.idx))
	o, err := create(codexPath(dir, c))
	if err != nil {
		return err
	}
	clock := c.start
	line := func(t time.Time, typ string, payload any) {
		if !t.After(clock) {
			t = clock.Add(time.Millisecond)
		}
		clock = t
		o.json(codexLine{Timestamp: isoMs(t), Type: typ, Payload: payload})
		o.str("\n")
	}
	msg := func(role, kind, text string) obj {
		return obj{"type", "message", "role", role, "content", []obj{{"type", kind, "text", text}}}
	}
	meta := obj{"id", c.id, "timestamp", isoMs(c.start), "cwd", c.proj.workdir, "originator", "codex_cli_rs", "cli_version", pick(r, []string{"0.44.0", "0.46.0", "0.58.0", "0.63.0"}), "instructions", nil, "source", "cli", "model_provider", "openai"}
	if c.proj.remote != "" {
		meta = append(meta, "git", obj{"commit_hash", fmt.Sprintf("%016x%016x%08x", r.Uint64(), r.Uint64(), r.Uint32()), "branch", cv.branch, "repository_url", c.proj.remote})
	}
	line(c.start, "session_meta", meta)
	line(c.start, "response_item", msg("developer", "input_text", "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. sandbox_mode is workspace-write.\n</permissions instructions>"))
	line(c.start, "response_item", msg("user", "input_text", fmt.Sprintf("# AGENTS.md instructions for %s\n\n<INSTRUCTIONS>\n- Run the tests before you say you're done.\n- Keep commits small.\n- %s uses %s; don't add new dependencies without asking.\n</INSTRUCTIONS>", c.proj.workdir, c.proj.name, c.proj.libs[0])))
	line(c.start, "response_item", msg("user", "input_text", fmt.Sprintf("<environment_context>\n  <cwd>%s</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>", c.proj.workdir)))
	totalIn, totalOut := 0, 0
	for _, t := range cv.turns {
		b := t.blocks[0]
		switch {
		case t.role == "user":
			if t.ts.After(c.start.Add(2*time.Hour)) && r.IntN(3) == 0 {
				line(t.ts, "session_meta", meta) // resumed the next day: the meta again
			}
			line(t.ts, "turn_context", obj{"cwd", c.proj.workdir, "approval_policy", "on-request", "sandbox_policy", obj{"type", "workspace-write", "network_access", false}, "model", "gpt-5-codex", "effort", "medium", "summary", "auto"})
			line(t.ts, "event_msg", obj{"type", "task_started", "model_context_window", 272000})
			line(t.ts, "response_item", msg("user", "input_text", b.text))
			line(t.ts, "event_msg", obj{"type", "user_message", "message", b.text, "images", []any{}})
		case b.kind == "thinking":
			if r.IntN(3) == 0 { // a reasoning item with only encrypted content
				line(t.ts, "response_item", obj{"type", "reasoning", "summary", []any{}, "content", nil, "encrypted_content", encrypted(r)})
			}
			line(t.ts, "response_item", obj{"type", "reasoning", "summary", []obj{{"type", "summary_text", "text", b.text}}, "content", nil, "encrypted_content", encrypted(r)})
			line(t.ts, "event_msg", obj{"type", "agent_reasoning", "text", b.text})
		case b.kind == "tool_use" && b.tool == "apply_patch":
			line(t.ts, "response_item", obj{"type", "custom_tool_call", "status", "completed", "call_id", b.call, "name", "apply_patch", "input", b.input})
		case b.kind == "tool_use":
			line(t.ts, "response_item", obj{"type", "function_call", "name", b.tool, "arguments", b.input, "call_id", b.call})
		case b.kind == "tool_result" && b.tool == "apply_patch":
			out, _ := json.Marshal(obj{"output", b.text, "metadata", obj{"exit_code", 0, "duration_seconds", 0.0}})
			line(t.ts, "response_item", obj{"type", "custom_tool_call_output", "call_id", b.call, "output", string(out)})
		case b.kind == "tool_result":
			out, _ := json.Marshal(obj{"output", b.text, "metadata", obj{"exit_code", r.IntN(4) / 3, "duration_seconds", float64(r.IntN(5000)) / 1000}})
			line(t.ts, "response_item", obj{"type", "function_call_output", "call_id", b.call, "output", string(out)})
		default: // assistant text
			line(t.ts, "response_item", msg("assistant", "output_text", b.text))
			line(t.ts, "event_msg", obj{"type", "agent_message", "message", b.text})
			totalIn += 8000 + r.IntN(30000)
			totalOut += len(b.text) / 4
			line(t.ts, "event_msg", obj{"type", "token_count", "info", obj{"total_token_usage", obj{"input_tokens", totalIn, "cached_input_tokens", totalIn * 3 / 4, "output_tokens", totalOut, "reasoning_output_tokens", totalOut / 3, "total_tokens", totalIn + totalOut}}, "rate_limits", obj{"primary", obj{"used_percent", float64(r.IntN(900)) / 10, "window_minutes", 300}}})
		}
	}
	return o.close()
}

func encrypted(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("gAAAAABo")
	const abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := 0; i < 200+r.IntN(400); i++ {
		b.WriteByte(abc[r.IntN(len(abc))])
	}
	return b.String()
}
