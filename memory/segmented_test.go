package memory

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
)

// Scripts written without spaces (Han, Kana, Hangul, Thai) are indexed as
// character bigrams: a word inside a sentence is found, in recall's
// candidates and in the conversation filter, and a forget erases those
// terms from every file and from the engine's tables.

func TestSegmentedWordInsideASentence(t *testing.T) {
	m := openTest(t)
	mustIngest(t, m,
		conv("ja-1", funes.HarnessChatGPT, "旅行の計画", "", day0, "昨日は東京で旅行した。とても楽しかった。", "いいですね"),
		conv("ja-2", funes.HarnessChatGPT, "天気", "", day0, "大阪の天気は晴れです", "そうですか"),
		conv("ko-1", funes.HarnessClaude, "약속", "", day0, "내일 서울에서 만나요", "좋아요"),
		conv("th-1", funes.HarnessClaude, "ทักทาย", "", day0, "สวัสดีครับ วันนี้อากาศดีมาก", "ครับ"),
	)
	for _, tc := range []struct{ query, want string }{
		{"東京", "ja-1"}, {"旅行", "ja-1"}, {"晴れ", "ja-2"}, {"서울", "ko-1"}, {"อากาศ", "th-1"},
		{"東京で旅行", "ja-1"},
	} {
		hits := searchTurns(t, m, tc.query)
		if len(hits) == 0 || hits[0].SessionID != tc.want || hits[0].Seq != 0 {
			t.Errorf("%s: hits %+v, want turn 0 of %s first", tc.query, hits, tc.want)
		}
	}
	if hits := searchTurns(t, m, "京都"); len(hits) != 0 {
		t.Errorf("京都 is said nowhere, found %+v", hits)
	}
}

// TestForgetErasesBigrams: a scrub erases them too
// (memscrub.TestScrubErasesBigrams).
func TestForgetErasesBigrams(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	mustIngest(t, m,
		conv("gone-1", funes.HarnessChatGPT, "秘密の会議", "", day0, "蜜柑林檎の件は誰にも言わないで", "わかりました"),
		conv("keep-1", funes.HarnessChatGPT, "天気", "", day0, "大阪の天気は晴れです。合言葉は葡萄梨桃栗です", "そうですか"),
	)
	has := func(term string) bool {
		t.Helper()
		ok, err := engine.HasTerm(ctx, m.db, term)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	// Before: the bigrams are terms and their bytes are in the files.
	for _, b := range []string{"蜜柑", "柑林", "林檎", "葡萄", "梨桃", "大阪"} {
		if !has(b) {
			t.Fatalf("%s was never indexed", b)
		}
		if len(grepDir(t, dir, b)) == 0 {
			t.Fatalf("%s is in no file before the forget", b)
		}
	}
	if _, err := m.Forget(ctx, []string{"gone-1"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"蜜柑", "柑林", "林檎", "檎の", "秘密", "会議"} {
		if has(b) {
			t.Errorf("forget: the term %s is still in the engine's tables", b)
		}
		if found := grepDir(t, dir, b); len(found) > 0 {
			t.Errorf("forget: %s is still in %v", b, found)
		}
	}
	if !has("大阪") || len(grepDir(t, dir, "大阪")) == 0 {
		t.Fatal("positive control: the kept conversation's 大阪 is gone")
	}

	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"蜜柑", "林檎"} {
		if found := grepDir(t, dir, b); len(found) > 0 {
			t.Errorf("after close: %s is still in %v", b, found)
		}
	}
}

// TestDeletesFindTheirDocuments: forget, a re-import of a grown
// conversation and a scrub hand the engine each deleted turn's document as
// it was indexed, so none is looked for in every term's list.
func TestDeletesFindTheirDocuments(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	start := lostDocs.Load()
	long := strings.Repeat("The V-261 sensor drift ticket was opened on Monday. ", 20) + "\n\n```go\nfunc main() { fmt.Println(\"x\") }\n```"
	mustIngest(t, m,
		conv("a", funes.HarnessClaudeCode, "Sensors", "", day0, "what about the sensor?", long, "thanks"),
		conv("b", funes.HarnessChatGPT, "Tea", "", time.Time{}, "green tea", "yes"), // undated
	)
	mustIngest(t, m, conv("a", funes.HarnessClaudeCode, "Sensors", "", day0, "what about the sensor?", long, "thanks", "and the M-261 one?"))
	if _, err := m.Forget(ctx, []string{"b"}, nil); err != nil {
		t.Fatal(err)
	}
	// A scrub's commit, as memscrub.Apply makes it: the redacted copy
	// replaces the conversation.
	sc := m.BeginRewrite()
	red := strings.ReplaceAll(long, "V-261", "[REDACTED]")
	if err := sc.Conversation(ctx, conv("a", funes.HarnessClaudeCode, "Sensors", "", day0, "what about the sensor?", red, "thanks", "and the M-261 one?")); err != nil {
		t.Fatal(err)
	}
	if err := sc.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := lostDocs.Load() - start; n != 0 {
		t.Fatalf("%d deleted documents were not handed to the engine as indexed", n)
	}
	if indexHas(t, m, "v261") || !indexHas(t, m, "m261") {
		t.Fatal("the scrubbed identifier is still indexed, or the kept one is not")
	}
}
