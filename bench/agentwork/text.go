package agentwork

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The text of turns: prose, code, logs and test output, made from the world
// with a conversation's own random source.

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// capital upper-cases an ASCII word's first letter.
func capital(w string) string {
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// camel joins words as a Go identifier: "flush", "pending", "batch" →
// "flushPendingBatch".
func camel(ws ...string) string {
	var b strings.Builder
	for i, w := range ws {
		w = strings.ReplaceAll(w, "-", "")
		if i > 0 && w != "" {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}

var sentenceShapes = []string{
	"The %[1]s path in %[2]s calls %[3]s for every %[4]s, so a slow %[5]s shows up as latency upstream.",
	"I'd keep the %[4]s handling in %[2]s and move %[3]s behind an interface, which makes the %[1]s case testable.",
	"If you look at how %[3]s is wired, the %[5]s is created per call instead of once per %[4]s.",
	"One thing to watch: %[2]s retries the %[4]s on any error, including the ones that can never succeed.",
	"With %[6]s the %[4]s is decoded twice; the second pass is only there for the %[1]s metrics.",
	"That's why the %[5]s count grows while the %[1]s %[4]s queue drains more slowly than it fills.",
	"In practice the %[1]s branch is rare, but when it runs it holds the lock for the whole %[4]s.",
	"A simpler option is to let %[3]s return early and have the caller decide whether to %[7]s.",
	"The dashboards for %[2]s should show it as a step change in the %[5]s rate rather than a slow climb.",
	"You could also %[7]s in the background, but then the %[4]s ordering guarantee is gone.",
	"Here is the part of %[2]s that matters; the rest of the file only wires up config and %[6]s.",
	"After the change, run the load test again and compare the %[5]s histogram with last week's.",
}

// sentence is one line of plausible prose about a service.
func sentence(r *rand.Rand, svc string) string {
	adj, noun := pick(r, adjectives), pick(r, nouns)
	fn := camel(pick(r, verbs), pick(r, adjectives), pick(r, nouns))
	return fmt.Sprintf(pick(r, sentenceShapes), adj, svc, fn+"()", noun, pick(r, nouns), pick(r, libs), pick(r, verbs))
}

// paragraph is n sentences about svc.
func paragraph(r *rand.Rand, svc string, n int) string {
	ss := make([]string, n)
	for i := range ss {
		ss[i] = sentence(r, svc)
	}
	return strings.Join(ss, " ")
}

// goCode is a Go function of about lines lines in package pkg.
func goCode(r *rand.Rand, svc, pkg string, lines int) string {
	noun := pick(r, nouns)
	typ := capital(noun) + pick(r, []string{"Writer", "Store", "Client", "Runner", "Cache"})
	fn := camel(pick(r, verbs), pick(r, adjectives), noun)
	var b strings.Builder
	fmt.Fprintf(&b, "```go\n// %s %ss the %s %ss of %s.\nfunc (w *%s) %s(ctx context.Context, ids []int64) error {\n",
		fn, pick(r, verbs), pick(r, adjectives), noun, svc, typ, capital(fn))
	for i := 0; i < lines; i++ {
		v := pick(r, nouns)
		switch r.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "\tif err := w.%s(ctx, %s); err != nil {\n\t\treturn fmt.Errorf(\"%s: %%w\", err)\n\t}\n", camel(pick(r, verbs), v), v, pkg)
			i += 2
		case 1:
			fmt.Fprintf(&b, "\tfor _, %s := range ids {\n\t\tw.%s[%s] = time.Now()\n\t}\n", v[:1], camel(pick(r, adjectives), v), v[:1])
			i += 2
		case 2:
			fmt.Fprintf(&b, "\t%s, err := w.db.QueryContext(ctx, `SELECT id, %s_at FROM %ss WHERE tenant_id = $1 LIMIT %d`, w.tenant)\n", v+"s", pick(r, adjectives), v, 100*(1+r.IntN(50)))
		case 3:
			fmt.Fprintf(&b, "\tw.log.Info(\"%s %s\", zap.Int(\"n\", len(ids)), zap.String(\"svc\", %q))\n", pick(r, verbs), v, svc)
		case 4:
			fmt.Fprintf(&b, "\tctx, cancel := context.WithTimeout(ctx, %d*time.Second)\n\tdefer cancel()\n", 1+r.IntN(30))
			i++
		default:
			fmt.Fprintf(&b, "\tw.metrics.%s.Add(float64(len(ids)))\n", camel(v, pick(r, []string{"count", "bytes", "retries"})))
		}
	}
	b.WriteString("\treturn nil\n}\n```")
	return b.String()
}

// pyCode is a Python function of about lines lines.
func pyCode(r *rand.Rand, svc string, lines int) string {
	noun := pick(r, nouns)
	var b strings.Builder
	fmt.Fprintf(&b, "```python\ndef %s_%s_%s(session, tenant_id: str, limit: int = %d) -> list[dict]:\n    \"\"\"%s the %s %ss for %s.\"\"\"\n",
		pick(r, verbs), pick(r, adjectives), noun, 50*(1+r.IntN(20)), capital(pick(r, verbs)), pick(r, adjectives), noun, svc)
	for i := 0; i < lines; i++ {
		v := pick(r, nouns)
		switch r.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "    rows = session.execute(select(%s).where(%s.tenant_id == tenant_id).limit(limit)).all()\n", capital(v), capital(v))
		case 1:
			fmt.Fprintf(&b, "    if not rows:\n        log.warning(\"no %s %ss for %%s\", tenant_id)\n        return []\n", pick(r, adjectives), v)
			i += 2
		case 2:
			fmt.Fprintf(&b, "    out = [{\"id\": r.id, \"%s\": r.%s_at.isoformat()} for r in rows]\n", v, pick(r, adjectives))
		default:
			fmt.Fprintf(&b, "    metrics.%s_%s.inc(len(rows))\n", v, pick(r, []string{"total", "retries", "bytes"}))
		}
	}
	b.WriteString("    return out\n```")
	return b.String()
}

// sqlCode is a migration or query.
func sqlCode(r *rand.Rand) string {
	noun := pick(r, nouns)
	return fmt.Sprintf("```sql\nCREATE INDEX CONCURRENTLY IF NOT EXISTS %[1]ss_%[2]s_idx ON %[1]ss (tenant_id, %[2]s_at);\n\nSELECT tenant_id, count(*) AS n, max(%[2]s_at) AS last\nFROM %[1]ss\nWHERE %[2]s_at > now() - interval '%[3]d hours'\nGROUP BY tenant_id\nORDER BY n DESC\nLIMIT 20;\n```",
		noun, pick(r, adjectives), 1+r.IntN(48))
}

// yamlCode is a deployment fragment.
func yamlCode(r *rand.Rand, svc string) string {
	return fmt.Sprintf("```yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %[1]s\nspec:\n  replicas: %[2]d\n  template:\n    spec:\n      containers:\n        - name: %[1]s\n          image: registry.internal/%[1]s:%[3]d.%[4]d.%[5]d\n          resources:\n            limits:\n              memory: %[6]dMi\n              cpu: \"%[7]d\"\n          env:\n            - name: %[8]s\n              value: \"%[9]d\"\n```",
		svc, 2+r.IntN(6), 1+r.IntN(3), r.IntN(20), r.IntN(10), 256*(1+r.IntN(8)), 1+r.IntN(4),
		strings.ToUpper(pick(r, nouns))+"_"+strings.ToUpper(pick(r, []string{"limit", "timeout", "batch", "workers"})), 10*(1+r.IntN(30)))
}

// code is a code block in one of the languages.
func code(r *rand.Rand, svc string) string {
	switch r.IntN(6) {
	case 0, 1, 2:
		return goCode(r, svc, pick(r, packages), 8+r.IntN(30))
	case 3:
		return pyCode(r, svc, 5+r.IntN(15))
	case 4:
		return sqlCode(r)
	}
	return yamlCode(r, svc)
}

// logLines is a pasted log excerpt.
func logLines(r *rand.Rand, svc string, n int) string {
	var b strings.Builder
	for i := range n {
		lvl := pick(r, []string{"INFO", "INFO", "WARN", "ERROR", "DEBUG"})
		fmt.Fprintf(&b, "2026-%02d-%02dT%02d:%02d:%02d.%03dZ %s %s %s %s=%d %s=%s host=%s\n", 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), i%60, r.IntN(1000),
			lvl, svc, camel(pick(r, verbs), pick(r, nouns)), pick(r, nouns), r.IntN(10000), pick(r, adjectives), pick(r, nouns), pick(r, hosts))
	}
	return "```\n" + b.String() + "```"
}

// testOutput is a `go test` run's output.
func testOutput(r *rand.Rand, pkg string, fail bool) string {
	var b strings.Builder
	for range 3 + r.IntN(8) {
		name := "Test" + capital(camel(pick(r, verbs), pick(r, adjectives), pick(r, nouns)))
		fmt.Fprintf(&b, "=== RUN   %s\n--- PASS: %s (0.%02ds)\n", name, name, r.IntN(99))
	}
	if fail {
		name := "Test" + capital(camel(pick(r, verbs), pick(r, nouns)))
		fmt.Fprintf(&b, "=== RUN   %s\n    %s_test.go:%d: got %d %ss, want %d\n--- FAIL: %s (0.%02ds)\nFAIL\nFAIL\tgithub.com/acme/platform/%s\t%d.%03ds\n",
			name, pick(r, nouns), 20+r.IntN(300), r.IntN(10), pick(r, nouns), 10+r.IntN(10), name, r.IntN(99), pkg, r.IntN(9), r.IntN(1000))
	} else {
		fmt.Fprintf(&b, "PASS\nok  \tgithub.com/acme/platform/%s\t%d.%03ds\n", pkg, r.IntN(9), r.IntN(1000))
	}
	return b.String()
}

// longReply is an assistant's code-heavy answer of about size bytes about
// svc, with insert (when set) as a sentence in a paragraph near its middle.
func longReply(r *rand.Rand, svc, insert string, size int) string {
	var parts []string
	n := 0
	placed := insert == ""
	for n < size || !placed {
		var p string
		if len(parts)%2 == 1 && r.IntN(3) > 0 {
			p = code(r, svc)
		} else {
			p = paragraph(r, svc, 2+r.IntN(4))
			if !placed && n >= size/3 {
				ss := strings.SplitAfter(p, ". ")
				at := r.IntN(len(ss) + 1)
				if at == len(ss) {
					// After the last sentence, which ends without a space: the
					// identifier was glued to it ("is gone.SEC-1007, the …").
					p += " " + insert
				} else {
					p = strings.Join(ss[:at], "") + insert + " " + strings.Join(ss[at:], "")
				}
				placed = true
			}
		}
		parts = append(parts, p)
		n += len(p)
	}
	return strings.Join(parts, "\n\n")
}
