package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/insights"
)

func TestInsightsCommand(t *testing.T) {
	dir := seed(t)
	code, out, errs := run(t, "--memory", dir, "insights", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var in insights.Insights
	if err := json.Unmarshal([]byte(out), &in); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if in.Range != insights.RangeAll || in.Headline.Conversations != 12 || in.Headline.Turns != 36 || len(in.BySource) != 1 ||
		in.BySource[0].TotalConvs != 12 || len(in.ByProject) != 2 || in.ByProject[0].TotalConvs != 4 {
		t.Errorf("insights --json: %+v", in)
	}
	for _, key := range []string{`"headline"`, `"secrets_redacted"`, `"conversations_forgotten"`, `"by_source"`, `"by_project"`, `"agents"`, `"weeks"`} {
		if !strings.Contains(out, key) {
			t.Errorf("insights --json has no %s", key)
		}
	}

	code, out, errs = run(t, "--memory", dir, "insights", "--range", "all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"conversations:     12 (36 turns", "by source", "chatgpt", "by project (top 10)", "plant-ops", "no agent calls"} {
		if !strings.Contains(out, want) {
			t.Errorf("insights output lacks %q:\n%s", want, out)
		}
	}
	if code, _, errs := run(t, "--memory", dir, "insights", "--range", "week"); code != ExitUsage || !strings.Contains(errs, "--range") {
		t.Errorf("a bad --range should be a usage error: %d %s", code, errs)
	}
}
