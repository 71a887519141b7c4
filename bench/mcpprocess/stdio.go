// Package mcpprocess measures real ireneo MCP server processes, the way
// clients run them. Stdio: how soon `ireneo mcp` answers the client that
// started it (mcp-go's stdio client starts the binary and sends initialize,
// as Claude Desktop or Codex would), beside the floor of the same binary's
// `ireneo --version` (dynamic loading and init functions, nothing of the
// memory), started and waited for the same way, in the same run; then the
// first recall, which pays for what initialize left for later, and the
// child's RSS. Serve: `ireneo serve`'s RSS after many recalls over HTTP.
package mcpprocess

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Build builds the ireneo binary of the module at root into out.
func Build(ctx context.Context, root, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ireneo in %s: %w\n%s", root, err, b)
	}
	return nil
}

// Round is one start of each kind.
type Round struct {
	Floor       time.Duration // `ireneo --version`, start to exit
	FloorCPU    time.Duration // its user + system CPU
	Initialize  time.Duration // `ireneo mcp`, start to the initialize answer
	FirstRecall time.Duration // then one recall, call to answer
	MCPCPU      time.Duration // the mcp child's CPU over the whole session
	RSSKB       int           // the mcp child's VmRSS after the recall
	HWMKB       int           // and its VmHWM
}

// Env is a bare environment for the child, as a client would give it:
// home and config under dir, so no settings of the person running the
// bench are read.
func Env(dir string) []string {
	return []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_DATA_HOME=" + dir,
		"LANG=en_US.UTF-8", "PATH=" + os.Getenv("PATH")}
}

// Measure starts bin n times each way, alternating, over the memory in
// memDir, and asks query once per mcp start.
func Measure(ctx context.Context, bin, memDir, query string, env []string, n int) ([]Round, error) {
	var rounds []Round
	for range n {
		var r Round
		var err error
		if r.Floor, r.FloorCPU, err = floor(ctx, bin, env); err != nil {
			return nil, err
		}
		if err := session(ctx, bin, memDir, query, env, &r); err != nil {
			return nil, err
		}
		rounds = append(rounds, r)
	}
	return rounds, nil
}

func floor(ctx context.Context, bin string, env []string) (time.Duration, time.Duration, error) {
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = env
	t := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("%s --version: %w: %s", bin, err, out)
	}
	return time.Since(t), cpuOf(cmd), nil
}

func session(ctx context.Context, bin, memDir, query string, env []string, r *Round) error {
	var cmd *exec.Cmd
	mk := func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		cmd = exec.CommandContext(ctx, command, args...)
		cmd.Env = env
		return cmd, nil
	}
	t := time.Now()
	c, err := client.NewStdioMCPClientWithOptions(bin, env, []string{"--memory", memDir, "mcp"}, transport.WithCommandFunc(mk))
	if err != nil {
		return fmt.Errorf("start %s mcp: %w", bin, err)
	}
	defer c.Close()
	ictx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	ir := mcp.InitializeRequest{}
	ir.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	ir.Params.ClientInfo = mcp.Implementation{Name: "bench-mcpstart", Version: "1"}
	if _, err := c.Initialize(ictx, ir); err != nil {
		return fmt.Errorf("%s mcp: initialize: %w", bin, err)
	}
	r.Initialize = time.Since(t)
	req := mcp.CallToolRequest{}
	req.Params.Name = "recall"
	req.Params.Arguments = map[string]any{"query": query}
	t = time.Now()
	res, err := c.CallTool(ictx, req)
	if err != nil {
		return fmt.Errorf("%s mcp: recall: %w", bin, err)
	}
	if res.IsError {
		return fmt.Errorf("%s mcp: recall %q: tool error %v", bin, query, res.Content)
	}
	r.FirstRecall = time.Since(t)
	if cmd != nil && cmd.Process != nil {
		r.RSSKB, r.HWMKB = statusKB(cmd.Process.Pid, "VmRSS"), statusKB(cmd.Process.Pid, "VmHWM")
	}
	if err := c.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("%s mcp: close: %w", bin, err)
	}
	r.MCPCPU = cpuOf(cmd)
	return nil
}

func cpuOf(cmd *exec.Cmd) time.Duration {
	if cmd == nil || cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// statusKB reads one kB field of /proc/PID/status (0 off Linux).
func statusKB(pid int, field string) int {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// Pct is the p-th percentile of what f picks from the rounds.
func Pct(rs []Round, p float64, f func(Round) time.Duration) time.Duration {
	ds := make([]time.Duration, len(rs))
	for i, r := range rs {
		ds[i] = f(r)
	}
	slices.Sort(ds)
	if len(ds) == 0 {
		return 0
	}
	return ds[min(len(ds)-1, int(p*float64(len(ds))))]
}
