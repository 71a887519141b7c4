package mcpprocess

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// ServeResult is what one `ireneo serve` run measured.
type ServeResult struct {
	Calls        []time.Duration // each recall over HTTP
	RSSKB, HWMKB int             // the serve process's VmRSS and VmHWM after them
	AnonKB       int             // of VmRSS, the heap and stacks (RssAnon)
	FileKB       int             // and the mapped binary and files (RssFile)
	CPU          time.Duration   // its user + system CPU over the run
}

// Serve starts `bin serve` over memDir on a free loopback port, asks each
// query over Streamable HTTP with token (whose hash must already be in the
// memory's catalog: serving reads no secret), then reads the process's RSS
// and stops it.
func Serve(ctx context.Context, bin, memDir, token string, env []string, queries []string) (ServeResult, error) {
	var res ServeResult
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return res, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.CommandContext(ctx, bin, "--memory", memDir, "serve", "--addr", addr, "--token-store", "file")
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	if err != nil {
		return res, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("start %s serve: %w", bin, err)
	}
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	// serve says where it listens once it does.
	url := ""
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "Ireneo MCP server at "); ok {
			url, _, _ = strings.Cut(rest, " ")
			break
		}
	}
	if url == "" {
		return res, fmt.Errorf("%s serve did not start: %s", bin, stderr.String())
	}
	go io.Copy(io.Discard, out)

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute}}
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPBasicClient(hc),
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		return res, err
	}
	c := client.NewClient(tr)
	if err := c.Start(ctx); err != nil {
		return res, err
	}
	defer c.Close()
	ir := mcp.InitializeRequest{}
	ir.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	ir.Params.ClientInfo = mcp.Implementation{Name: "bench-mcpprocess", Version: "1"}
	if _, err := c.Initialize(ctx, ir); err != nil {
		return res, fmt.Errorf("serve: initialize: %w", err)
	}
	for _, q := range queries {
		req := mcp.CallToolRequest{}
		req.Params.Name = "recall"
		req.Params.Arguments = map[string]any{"query": q}
		t := time.Now()
		r, err := c.CallTool(ctx, req)
		if err != nil {
			return res, fmt.Errorf("serve: recall %q: %w", q, err)
		}
		if r.IsError {
			return res, fmt.Errorf("serve: recall %q: tool error %v", q, r.Content)
		}
		res.Calls = append(res.Calls, time.Since(t))
	}
	pid := cmd.Process.Pid
	res.RSSKB, res.HWMKB = statusKB(pid, "VmRSS"), statusKB(pid, "VmHWM")
	res.AnonKB, res.FileKB = statusKB(pid, "RssAnon"), statusKB(pid, "RssFile")
	c.Close()
	if err := cmd.Process.Signal(interrupt); err != nil {
		return res, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
	res.CPU = cpuOf(cmd)
	return res, nil
}
