package plumbing

import (
	"strings"
	"testing"
)

// benchBlocks are blocks as an agent session holds them: a person's
// message with a reminder, a long file read, a large JSON tool output, a
// call and an answer of Ireneo's.
func benchBlocks() [][4]string {
	file := strings.Repeat("   12→func main() { fmt.Println(\"hello, world\") }\n", 2000) + readWithReminder
	js := "{\"items\":[" + strings.Repeat(`{"id":"a1","name":"pump seal","qty":4,"note":"K-2 compressor spare"},`, 1500) + `{}]}`
	return [][4]string{
		{"user", "text", "", "<system-reminder>\nContext.\n</system-reminder>\nWhy does MT-4471 fail on start? " + strings.Repeat("It trips after ten seconds. ", 40)},
		{"tool", "tool_result", "Read", file},
		{"tool", "tool_result", "mcp__github__search", js},
		{"assistant", "tool_use", "mcp__ireneo__recall", `{"query":"MT-4471 K-2 compressor"}`},
		{"tool", "tool_result", "mcp__ireneo__recall", ResultMarker + " " + oldRecallText},
		{"assistant", "text", "", strings.Repeat("The compressor trips because the seal is worn. ", 60)},
	}
}

func benchBytes(bs [][4]string) int64 {
	n := 0
	for _, b := range bs {
		n += len(b[3])
	}
	return int64(n)
}

// BenchmarkClassify is what Classify costs per byte of transcript; compare
// it with BenchmarkClassifyFloor, one pass over the same bytes.
func BenchmarkClassify(b *testing.B) {
	bs := benchBlocks()
	b.SetBytes(benchBytes(bs))
	for b.Loop() {
		for _, x := range bs {
			Classify(x[0], x[1], x[2], x[3])
		}
	}
}

// BenchmarkClassifyFloor counts the lines of the same blocks: a floor for
// any scan of them.
func BenchmarkClassifyFloor(b *testing.B) {
	bs := benchBlocks()
	b.SetBytes(benchBytes(bs))
	for b.Loop() {
		for _, x := range bs {
			strings.Count(x[3], "\n")
		}
	}
}
