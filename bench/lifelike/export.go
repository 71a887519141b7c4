package lifelike

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Where WriteExports puts each source, under its folder.
const (
	ChatGPTDir    = "chatgpt-export"        // conversations.json, or conversations-NNN.json shards
	ClaudeDir     = "claude-export"         // conversations.json, users.json, projects.json
	CodexDir      = "home/.codex/sessions"  // YYYY/MM/DD/rollout-*.jsonl
	ClaudeCodeDir = "home/.claude/projects" // <munged cwd>/<session>.jsonl
)

// chatGPTShard is how many conversations one ChatGPT shard holds; a
// history with more than shardOver of them is written sharded, as 2026
// exports are.
const (
	chatGPTShard = 1000
	shardOver    = 1500
)

// WriteExports writes the history to dir in the four export formats, one
// conversation at a time. `ireneo import dir` imports it whole.
func (d *Dataset) WriteExports(dir string) error {
	if err := d.writeChatGPT(filepath.Join(dir, ChatGPTDir)); err != nil {
		return fmt.Errorf("chatgpt export: %w", err)
	}
	if err := d.writeClaude(filepath.Join(dir, ClaudeDir)); err != nil {
		return fmt.Errorf("claude export: %w", err)
	}
	if err := d.writeCodex(filepath.Join(dir, CodexDir)); err != nil {
		return fmt.Errorf("codex sessions: %w", err)
	}
	if err := d.writeClaudeCode(filepath.Join(dir, ClaudeCodeDir)); err != nil {
		return fmt.Errorf("claude code projects: %w", err)
	}
	return nil
}

// outFile is a buffered file that remembers its first write error.
type outFile struct {
	f   *os.File
	w   *bufio.Writer
	err error
}

func create(path string) (*outFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &outFile{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (o *outFile) write(b []byte) {
	if o.err == nil {
		_, o.err = o.w.Write(b)
	}
}

func (o *outFile) str(s string) { o.write([]byte(s)) }

// json writes v as compact JSON without HTML escaping.
func (o *outFile) json(v any) {
	if o.err != nil {
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if o.err = enc.Encode(v); o.err == nil {
		o.write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
}

func (o *outFile) close() error {
	if o.err == nil {
		o.err = o.w.Flush()
	}
	if err := o.f.Close(); o.err == nil {
		o.err = err
	}
	return o.err
}

func epoch(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }

func iso(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

func isoMs(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// obj is a JSON object whose keys keep the order they are written in
// (key, value, key, value, …), as the real tools write them.
type obj []any

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(o[i]); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // the encoder's newline
		b.WriteByte(':')
		if err := enc.Encode(o[i+1]); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
