package harnesstest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// StandIn is a model server on loopback that speaks Gemini's
// streamGenerateContent and OpenAI's chat completions (streamed), and
// plays one script whatever it is asked:
//
//  1. a reply with a thought, a word and a call of the shell tool the
//     request offers (run_shell_command, bash) running `echo <Word>`;
//  2. after its result, a call of the tool whose name ends in Recall
//     (Ireneo's recall, as the CLI names it) with query RecallQuery, when
//     the request offers one;
//  3. after that, a call of the sub-agent tool (invoke_agent, task), when
//     SubAgent is set and the request offers one; a sub-agent's requests
//     (they offer complete_task, or no sub-agent tool) get a shell call or
//     a list of the folder, then their answer;
//  4. the answer: "The command printed <Word>. Done."
//
// Requests that offer no tools (titles, routing, summaries) get a short
// text. Every request is kept in Requests.
type StandIn struct {
	URL         string // the base URL (no path)
	Word        string
	RecallQuery string
	SubAgent    bool

	mu       sync.Mutex
	Requests []string // method, path and body of each request
	srv      *httptest.Server
}

// NewStandIn starts a stand-in on loopback, closed when the test ends.
func NewStandIn(t testing.TB) *StandIn {
	t.Helper()
	s := &StandIn{Word: "ireneo-stand-in", RecallQuery: "K-2 compressor decision"}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Log writes the requests to a file, for a failing test to show.
func (s *StandIn) Log(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(strings.Join(s.Requests, "\n\n")), 0o644)
}

func (s *StandIn) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.Requests = append(s.Requests, r.Method+" "+r.URL.String()+"\n"+string(body))
	s.mu.Unlock()
	switch p := r.URL.Path; {
	case strings.Contains(p, ":streamGenerateContent"):
		s.gemini(w, body, true)
	case strings.Contains(p, ":generateContent"):
		s.gemini(w, body, false)
	case strings.Contains(p, ":countTokens"):
		w.Write([]byte(`{"totalTokens":42}`))
	case strings.HasSuffix(p, "/chat/completions"):
		s.openai(w, body)
	case strings.HasSuffix(p, "/models"):
		w.Write([]byte(`{"object":"list","data":[{"id":"stand-in","object":"model","owned_by":"ireneo"}]}`))
	default:
		http.NotFound(w, r)
	}
}

// step is what the script says next: a call (name, args) or the answer.
type step struct {
	call string
	args map[string]any
	text string
}

// next plays the script from the tools offered and the calls made so far.
func (s *StandIn) next(tools map[string]map[string]any, called []string) step {
	shell := firstOf(tools, "run_shell_command", "bash", "shell")
	recallTool := ""
	subTool := ""
	for name := range tools {
		if strings.HasSuffix(name, "recall") && name != "recall_memory" {
			recallTool = name
		}
	}
	subTool = firstOf(tools, "invoke_agent", "task")
	sub := tools["complete_task"] != nil || (subTool == "" && shell != "" && len(tools) < 12)
	has := func(n string) bool {
		for _, c := range called {
			if c == n {
				return true
			}
		}
		return false
	}
	answer := step{text: "The command printed " + s.Word + ". Done."}
	switch {
	case len(tools) == 0:
		return step{text: "Stand-in title"}
	case tools["complete_task"] != nil && len(called) == 0:
		return step{call: "list_directory", args: map[string]any{"dir_path": "."}}
	case tools["complete_task"] != nil:
		if has("complete_task") {
			return answer
		}
		return step{call: "complete_task", args: map[string]any{"report": map[string]any{
			"SummaryOfFindings": "The word is printed by echo.", "ExplorationTrace": []string{"listed the folder"}, "RelevantLocations": []any{}}}}
	case shell != "" && len(called) == 0:
		args := map[string]any{"command": "echo " + s.Word}
		if _, ok := tools[shell]["description"]; ok {
			args["description"] = "Print the word"
		}
		fill(args, tools[shell])
		return step{call: shell, args: args}
	case sub:
		return answer
	case recallTool != "" && s.RecallQuery != "" && !has(recallTool):
		return step{call: recallTool, args: map[string]any{"query": s.RecallQuery}}
	case s.SubAgent && subTool != "" && !has(subTool):
		args := map[string]any{"description": "Find the word", "prompt": "Find where " + s.Word + " comes from.",
			"agent_name": "codebase_investigator", "subagent_type": "general"}
		fill(args, tools[subTool])
		for k := range args {
			if _, ok := tools[subTool][k]; !ok {
				delete(args, k)
			}
		}
		return step{call: subTool, args: args}
	}
	return answer
}

func firstOf(tools map[string]map[string]any, names ...string) string {
	for _, n := range names {
		if tools[n] != nil {
			return n
		}
	}
	return ""
}

// fill gives every required argument of a schema a value: its enum's
// first, or a word.
func fill(args map[string]any, schema map[string]any) {
	req, _ := schema["\x00required"].([]string)
	for _, r := range req {
		if _, ok := args[r]; ok {
			continue
		}
		if p, ok := schema[r].(map[string]any); ok {
			if e, ok := p["enum"].([]any); ok && len(e) > 0 {
				args[r] = e[0]
				continue
			}
		}
		args[r] = "finder"
	}
}

// properties reads a JSON schema's properties, with its required list
// under the key "\x00required".
func properties(raw json.RawMessage) map[string]any {
	var sc struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	json.Unmarshal(raw, &sc)
	out := map[string]any{}
	for k, v := range sc.Properties {
		out[k] = v
	}
	out["\x00required"] = sc.Required
	return out
}

func (s *StandIn) gemini(w http.ResponseWriter, body []byte, stream bool) {
	var q struct {
		Contents []struct {
			Parts []map[string]json.RawMessage `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			Decls []struct {
				Name       string          `json:"name"`
				Schema     json.RawMessage `json:"parametersJsonSchema"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	json.Unmarshal(body, &q)
	tools := map[string]map[string]any{}
	for _, t := range q.Tools {
		for _, d := range t.Decls {
			sc := d.Schema
			if len(sc) == 0 {
				sc = d.Parameters
			}
			tools[d.Name] = properties(sc)
		}
	}
	var called []string
	for _, c := range q.Contents {
		for _, p := range c.Parts {
			if raw, ok := p["functionCall"]; ok {
				var fc struct {
					Name string `json:"name"`
				}
				json.Unmarshal(raw, &fc)
				called = append(called, fc.Name)
			}
		}
	}
	st := s.next(tools, called)
	var chunks []string
	if st.call != "" {
		args, _ := json.Marshal(st.args)
		chunks = []string{
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"**Planning the check**\n\nI will call ` + st.call + `.","thought":true}]},"index":0}]}`,
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"Calling ` + st.call + `."},{"functionCall":{"name":` + quote(st.call) + `,"args":` + string(args) + `}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":20,"totalTokenCount":120}}`,
		}
	} else {
		text := st.text
		if len(tools) == 0 {
			text = `{"reasoning":"simple","model_choice":"flash"}` // Gemini CLI's router asks which model
		}
		chunks = []string{`{"candidates":[{"content":{"role":"model","parts":[{"text":` + quote(text) + `}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":120,"candidatesTokenCount":9,"totalTokenCount":129}}`}
	}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(chunks[len(chunks)-1]))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, c := range chunks {
		fmt.Fprintf(w, "data: %s\r\n\r\n", c)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
}

func (s *StandIn) openai(w http.ResponseWriter, body []byte) {
	var q struct {
		Stream   bool             `json:"stream"`
		Messages []map[string]any `json:"messages"`
		Tools    []struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	json.Unmarshal(body, &q)
	tools := map[string]map[string]any{}
	for _, t := range q.Tools {
		tools[t.Function.Name] = properties(t.Function.Parameters)
	}
	var called []string
	for _, m := range q.Messages {
		tc, _ := m["tool_calls"].([]any)
		for _, c := range tc {
			f, _ := c.(map[string]any)["function"].(map[string]any)
			n, _ := f["name"].(string)
			called = append(called, n)
		}
	}
	st := s.next(tools, called)
	finish := "stop"
	var deltas []string
	if st.call != "" {
		finish = "tool_calls"
		args, _ := json.Marshal(st.args)
		deltas = []string{
			`{"role":"assistant","content":null,"reasoning_content":"I will call ` + st.call + `."}`,
			`{"content":"Calling ` + st.call + `."}`,
			fmt.Sprintf(`{"tool_calls":[{"index":0,"id":"call_standin_%d","type":"function","function":{"name":%s,"arguments":""}}]}`, len(called)+1, quote(st.call)),
			fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%s}}]}`, quote(string(args))),
		}
	} else {
		deltas = []string{`{"role":"assistant","content":""}`, `{"content":` + quote(st.text) + `}`}
	}
	if !q.Stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":"stand-in","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`, quote(st.text))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta, finish string) {
		fmt.Fprintf(w, `data: {"id":"chatcmpl-standin","object":"chat.completion.chunk","created":1780000000,"model":"stand-in","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", delta, finish)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	for _, d := range deltas {
		chunk(d, "null")
	}
	fmt.Fprintf(w, `data: {"id":"chatcmpl-standin","object":"chat.completion.chunk","created":1780000000,"model":"stand-in","choices":[{"index":0,"delta":{},"finish_reason":%s}],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}}`+"\n\n", quote(finish))
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
