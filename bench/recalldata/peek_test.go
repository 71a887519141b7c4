package recalldata

import (
	"fmt"
	"testing"
)

func TestPeek(t *testing.T) {
	d := Generate(Config{N: 1000})
	for _, c := range d.Conversations[:4] {
		fmt.Printf("== %s %s %q %s\n", c.Harness, c.ID, c.Title, c.Fact.Kind)
		for _, m := range c.Messages {
			fmt.Printf("  %s %s: %s | think=%q tools=%v\n", m.TS.Format("2006-01-02 15:04:05"), m.Role, m.Text, m.Thinking, m.Tools)
		}
	}
	n := map[string]int{}
	for _, q := range d.Questions {
		n[q.Type]++
		if n[q.Type] <= 4 {
			fmt.Printf("%s %s -> %s %s\n", q.Type, q.Text, q.SessionID[:8], q.Answer)
		}
	}
	fmt.Println(n, len(d.Conversations))
}
