package recall

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// Issue 27, the engine's side: where candidates are found, an identifier
// binds as typed, a fact in one sentence of a long code reply is found and
// shown, and a word of a script written without spaces is found inside a
// sentence.

// codeReply is a long assistant reply, mostly code, with fact said once in
// the middle of it.
func codeReply(fact string) string {
	var b strings.Builder
	b.WriteString("Here is the refactor of the loader you asked for, with the retry loop pulled out.\n\n```go\n")
	for i := range 40 {
		fmt.Fprintf(&b, "func step%d(ctx context.Context, r *Reader) error { return r.Next(ctx, %d) }\n", i, i)
	}
	b.WriteString("```\n\n")
	b.WriteString(fact)
	b.WriteString("\n\n```go\n")
	for i := range 40 {
		fmt.Fprintf(&b, "if err := step%d(ctx, r); err != nil { return fmt.Errorf(\"step %d: %%w\", err) }\n", i, i)
	}
	b.WriteString("```\n\nRun the tests again after this; the loader's behaviour is unchanged.")
	return b.String()
}

// filler is conversations about other things, so words have their weight.
func filler(n int) []*funes.Session {
	var out []*funes.Session
	topics := []string{"the garden needs water", "a recipe for soup", "the train was late", "booking a dentist", "which laptop to buy", "the football score"}
	for i := range n {
		t := topics[i%len(topics)]
		out = append(out, conv(fmt.Sprintf("f%d", i), funes.HarnessChatGPT, t, "", day0.Add(time.Duration(i)*time.Hour),
			"tell me about "+t, "Sure: "+t+", and more on that later.", "thanks"))
	}
	return out
}

func TestIdentifierBeatsItsParts(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	ss := filler(40)
	ss = append(ss,
		conv("v", funes.HarnessClaudeCode, "Loader refactor", "", day0, "refactor the loader please",
			codeReply("I also opened ticket V-261 for the sensor drift on the north line, as you asked.")),
		conv("m", funes.HarnessChatGPT, "Sensors", "", day0.Add(time.Hour), "M-261 sensor drift ticket: closed today.", "noted"),
		conv("f", funes.HarnessChatGPT, "Sensors", "", day0.Add(2*time.Hour), "The F-261 sensor drift ticket is still open.", "ok"),
		conv("n", funes.HarnessChatGPT, "Sensors", "", day0.Add(3*time.Hour), "Sensor drift ticket for line 261, all good.", "ok"),
	)
	mustIngest(t, m, ss...)
	res, err := Recall(ctx, m, Options{Query: "V-261 sensor drift ticket"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].SessionID != "v" {
		t.Fatalf("want the V-261 turn first, got %s", sessions(res.Hits))
	}
	if !strings.Contains(res.Hits[0].Text, "V-261") {
		t.Errorf("the hit does not show the passage holding V-261: %.200q", res.Hits[0].Text)
	}
}

func TestSentenceInsideALongCodeReply(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	reply := codeReply("By the way, the heron migration uses port 6412 on the staging host.")
	if len(reply) < 3700 {
		t.Fatalf("the reply is %d bytes, want a long one", len(reply))
	}
	ss := filler(40)
	ss = append(ss,
		conv("long", funes.HarnessClaudeCode, "Loader refactor", "", day0, "refactor the loader please", reply),
		conv("d1", funes.HarnessChatGPT, "Migrations", "", day0.Add(time.Hour), "is the migration done?", "The migration finished."),
		conv("d2", funes.HarnessChatGPT, "Ports", "", day0.Add(2*time.Hour), "which port is free?", "Port 8080 is free."),
		conv("d3", funes.HarnessChatGPT, "Birds", "", day0.Add(3*time.Hour), "I saw a heron today", "Herons are lovely."),
		// Short turns that share most of the question's words.
		conv("d4", funes.HarnessChatGPT, "Deploys", "", day0.Add(4*time.Hour), "The migration uses port 8080 now.", "ok"),
	)
	mustIngest(t, m, ss...)
	res, err := Recall(ctx, m, Options{Query: "what port does the heron migration use?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].SessionID != "long" {
		t.Fatalf("want the long reply first, got %s", sessions(res.Hits))
	}
	if i := strings.Index(res.Hits[0].Text, "6412"); i < 0 || i > 200 {
		t.Errorf("the hit should show the sentence first, port 6412 is at %d of %.300q", i, res.Hits[0].Text)
	}
}

func TestSegmentedWordFound(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	ss := append(filler(10),
		conv("ja", funes.HarnessChatGPT, "旅行", "", day0, "昨日は東京で旅行した。", "楽しそうですね"),
		conv("ja2", funes.HarnessChatGPT, "天気", "", day0, "京都は雨でした", "残念"),
	)
	mustIngest(t, m, ss...)
	res, err := Recall(ctx, m, Options{Query: "東京"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].SessionID != "ja" || res.Hits[0].Seq != 0 {
		t.Fatalf("want the sentence with 東京 first, got %s", sessions(res.Hits))
	}
}

func sessions(hs []Hit) string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s#%d", h.SessionID, h.Seq))
	}
	return strings.Join(out, " ")
}
