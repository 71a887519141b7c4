package answer

import (
	"regexp"
	"strings"
)

// execEnvelope is the header Codex writes before a command's output in the
// result of its exec_command (codex-rs unified exec: "Chunk ID: …", "Wall
// time: … seconds", "Process exited with code N" or "Process running with
// session ID N", "Original token count: N", "Output:") and shell_command
// ("Exit code: N", "Wall time: … seconds", "Output:"), with the notice it
// puts first in an output it cut in the middle.
var execEnvelope = regexp.MustCompile(`^(?:(?:Chunk ID: \S+|Wall time: [0-9.]+ seconds|Process exited with code -?\d+|Process running with session ID \d+|Original token count: \d+|Exit code: -?\d+)\n)+Output:\n(?:Warning: truncated output \(original token count: \d+\)\n(?:Total output lines: \d+\n)?\n?)?`)

// ShellOutput cuts a shell tool's result into the harness's envelope and
// the command's own output, so the CLI's answer is known, and erased from,
// behind it. Without an envelope, head is "" and out is text.
func ShellOutput(text string) (head, out string) {
	if text == "" || strings.IndexByte("CWPOE<", text[0]) < 0 {
		return "", text
	}
	n := len(execEnvelope.FindString(text))
	if n == 0 {
		n = len(geminiShellEnvelope.FindString(text))
	}
	return text[:n], text[n:]
}

// untrustedOpen and untrustedClose are Gemini CLI's envelope around a
// tool's result.
const (
	untrustedOpen  = "<untrusted_context>\n"
	untrustedClose = "</untrusted_context>"
)

// envelopeClose is where the envelope head opened closes in out, what
// follows it (Gemini CLI's "\n</untrusted_context>", its newline with
// it), or len(out) when head has no close: erased there, recall's MCP
// text ran its last hit to the result's end, its closing hints and the
// close with it.
func envelopeClose(head, out string) int {
	if !strings.HasPrefix(head, untrustedOpen) {
		return len(out)
	}
	trimmed := strings.TrimRight(out, " \t\r\n")
	if !strings.HasSuffix(trimmed, untrustedClose) {
		return len(out)
	}
	end := len(trimmed) - len(untrustedClose)
	if end > 0 && out[end-1] == '\n' {
		end--
	}
	return end
}

// geminiShellEnvelope is what Gemini CLI puts before a tool's output:
// "<untrusted_context>\n" around every tool's result from 0.5x on (an MCP
// tool's too), with "Output: " after it for run_shell_command's (0.4x on),
// or "Command: …\nDirectory: …\nStdout: " (before). The output runs from
// there on the same line.
var geminiShellEnvelope = regexp.MustCompile(`^<untrusted_context>\n(?:Output: )?|^Output: |^Command: [^\n]*\nDirectory: [^\n]*\nStdout: `)
