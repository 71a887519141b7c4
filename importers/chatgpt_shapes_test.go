package importers

import (
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// A 2024 ChatGPT conversation with a browser result whose lines carry
// 【index†title†domain】 marks, an answer citing 【10†source】, and canvas code
// (canmore.create_textdoc / update_textdoc, whose document is a JSON string
// inside parts; EXPORT-FORMATS.md §1 item 9).
const gptCitesAndCanvas = `[{"title":"Fibonacci in a canvas","create_time":1714000000.0,"update_time":1714000100.0,
"mapping":{
"root":{"id":"root","message":null,"parent":null,"children":["u1"]},
"u1":{"id":"u1","message":{"id":"u1","author":{"role":"user","name":null,"metadata":{}},"create_time":1714000000.0,"content":{"content_type":"text","parts":["Which mountain is tallest? Then write fib in a canvas."]},"weight":1.0,"metadata":{},"recipient":"all","status":"finished_successfully"},"parent":"root","children":["b1"]},
"b1":{"id":"b1","message":{"id":"b1","author":{"role":"tool","name":"browser","metadata":{}},"create_time":1714000010.0,"content":{"content_type":"tether_browsing_display","result":"L0: # 【0†Tallest mountains†example.com】\nL1: Everest is 8,849 m.","summary":null},"weight":1.0,"metadata":{},"recipient":"all","status":"finished_successfully"},"parent":"u1","children":["a1"]},
"a1":{"id":"a1","message":{"id":"a1","author":{"role":"assistant","name":null,"metadata":{}},"create_time":1714000020.0,"content":{"content_type":"text","parts":["Everest, at 8,849 m【10†source】."]},"weight":1.0,"metadata":{},"recipient":"all","status":"finished_successfully"},"parent":"b1","children":["cv1"]},
"cv1":{"id":"cv1","message":{"id":"cv1","author":{"role":"assistant","name":null,"metadata":{}},"create_time":1714000030.0,"content":{"content_type":"text","parts":["{\"name\":\"fib\",\"type\":\"code/python\",\"content\":\"def fib(n):\\n    return n if n < 2 else fib(n-1) + fib(n-2)\\n\"}"]},"weight":1.0,"metadata":{},"recipient":"canmore.create_textdoc","status":"finished_successfully"},"parent":"a1","children":["cv2"]},
"cv2":{"id":"cv2","message":{"id":"cv2","author":{"role":"assistant","name":null,"metadata":{}},"create_time":1714000040.0,"content":{"content_type":"text","parts":["{\"updates\":[{\"pattern\":\".*\",\"multiple\":false,\"replacement\":\"def fib(n):\\n    a, b = 0, 1\\n    for _ in range(n):\\n        a, b = b, a + b\\n    return a\\n\"}]}"]},"weight":1.0,"metadata":{},"recipient":"canmore.update_textdoc","status":"finished_successfully"},"parent":"cv1","children":[]}
},"current_node":"cv2","conversation_id":"conv-canvas","id":"conv-canvas","default_model_slug":"gpt-4o"}]`

func TestChatGPTCitationsAndCanvas(t *testing.T) {
	p := parseString(t, ParseChatGPT, "conversations.json", gptCitesAndCanvas)
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions %v", p.err, len(p.sessions), p.skipped)
	}
	checkTurns(t, p.sessions[0], []want{
		{"u1", "", "user", []funes.Block{txt("Which mountain is tallest? Then write fib in a canvas.")}},
		{"b1", "", "tool", []funes.Block{result("browser", "L0: # 【0†Tallest mountains†example.com】\nL1: Everest is 8,849 m.")}},
		{"a1", "", "assistant", []funes.Block{txt("Everest, at 8,849 m【10†source】.")}},
		{"cv1", "", "assistant", []funes.Block{use("canmore.create_textdoc", "fib\n\ndef fib(n):\n    return n if n < 2 else fib(n-1) + fib(n-2)\n")}},
		{"cv2", "", "assistant", []funes.Block{use("canmore.update_textdoc", "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n")}},
	})
}
