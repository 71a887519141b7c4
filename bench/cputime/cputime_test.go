package cputime

import (
	"runtime"
	"testing"
)

func TestSelfGrowsWithWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" {
		t.Skip("not read here")
	}
	before := Self()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if after := Self(); after <= before {
		t.Fatalf("CPU time did not grow over a busy loop: %v then %v (x=%d)", before, after, x)
	}
}
