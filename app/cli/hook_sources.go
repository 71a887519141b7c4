package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/capture"
)

// The capture hooks of Gemini CLI, Cursor, Copilot CLI and opencode (issue
// 31), as `connect … --write --hooks` installs them: each reads its
// harness's JSON on stdin and queues the session it names, as the Claude
// Code hook does. Where a harness's input names no file, the session's is
// found from the environment the harness runs the hook in.

// newHookSourceCmds are the hook commands of the harnesses above.
func newHookSourceCmds(g *globals) []*cobra.Command {
	env := func() capture.Env { return capture.Env{} }
	one := func(name, short string, parse func(io.Reader, capture.Env) (capture.Event, error)) *cobra.Command {
		return &cobra.Command{
			Use:   name,
			Short: short,
			Args:  cobra.ArbitraryArgs, // words a later version may add; ignored
			RunE: func(c *cobra.Command, args []string) error {
				e, err := parse(g.stdin, env())
				if err != nil {
					return g.hookLog(name+" hook "+errorWord+"%v (nothing imported)", err)
				}
				return g.startHookImport(c.Context(), e)
			},
		}
	}
	return []*cobra.Command{
		one(capture.GeminiCLI, "Gemini CLI hook (SessionEnd, PreCompress, AfterAgent): import the session its input on stdin names",
			func(r io.Reader, _ capture.Env) (capture.Event, error) { return capture.ParseGeminiCLI(r) }),
		one(capture.Cursor, "Cursor hook (sessionEnd, stop): import the conversation its input on stdin names", capture.ParseCursor),
		one(capture.CopilotCLI, "Copilot CLI hook (sessionEnd, agentStop): import the session its input on stdin names", capture.ParseCopilotCLI),
		one(capture.OpenCode, "opencode plugin (session.idle, session.compacted): import the session its input on stdin names", capture.ParseOpenCode),
	}
}
