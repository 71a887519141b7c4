package recallbench

import (
	"fmt"
	"io"
)

// WriteTable writes the rows as a Markdown table.
func WriteTable(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "| N | system | type | questions | hit@1 | hit@3 | hit@8 | answer@3 | p50 ms | p95 ms |")
	fmt.Fprintln(w, "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		timed := ""
		if r.Timed != r.Questions {
			timed = fmt.Sprintf(" (%d timed)", r.Timed)
		}
		fmt.Fprintf(w, "| %d | %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.2f%s | %.2f |\n",
			r.N, r.System, r.Type, r.Questions, r.Hit1, r.Hit3, r.Hit8, r.Ans3, r.P50, timed, r.P95)
	}
}
