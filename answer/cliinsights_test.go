package answer

import "testing"

func TestSparkline(t *testing.T) {
	if got := sparkline([]int{0, 1, 4, 8, 0}); got != " ▁▄█" {
		t.Errorf("sparkline = %q", got)
	}
	if got := []rune(sparkline(make([]int, 200))); len(got) != 0 {
		t.Errorf("an empty series draws nothing: %q", string(got))
	}
}
