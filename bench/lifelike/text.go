package lifelike

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// scene is what a piece of text is about: it fills the {slots} of the
// templates below.
type scene struct {
	p     *project
	svc   string
	lib   string
	table string
	topic string // a noun phrase, what the exchange is about
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func newScene(r *rand.Rand, p *project, topic string) scene {
	return scene{p: p, svc: pick(r, p.svcs), lib: pick(r, p.libs), table: pick(r, p.tables), topic: topic}
}

// fill replaces {slot}s in a template. Slots that name a kind of thing pick
// a fresh one each time, so two sentences from one template differ.
func fill(r *rand.Rand, sc scene, tpl string) string {
	var b strings.Builder
	b.Grow(len(tpl) + 32)
	for {
		i := strings.IndexByte(tpl, '{')
		if i < 0 {
			b.WriteString(tpl)
			return b.String()
		}
		j := strings.IndexByte(tpl[i:], '}')
		if j < 0 || !isSlot(tpl[i+1:i+j]) {
			// Not a slot: a brace of code, kept as it is.
			b.WriteString(tpl[:i+1])
			tpl = tpl[i+1:]
			continue
		}
		b.WriteString(tpl[:i])
		b.WriteString(slot(r, sc, tpl[i+1:i+j]))
		tpl = tpl[i+j+1:]
	}
}

func isSlot(name string) bool {
	if name == "" || len(name) > 8 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func slot(r *rand.Rand, sc scene, name string) string {
	switch name {
	case "svc":
		return sc.svc
	case "svc2":
		return pick(r, sc.p.svcs)
	case "lib":
		return sc.lib
	case "lib2":
		return pick(r, sc.p.libs)
	case "table":
		return sc.table
	case "proj":
		return sc.p.name
	case "desc":
		return sc.p.desc
	case "host":
		return pick(r, hosts)
	case "person":
		return pick(r, people)
	case "concept":
		return pick(r, concepts)
	case "word":
		return pick(r, genericWords)
	case "topic":
		if sc.topic == "" {
			return "this"
		}
		return sc.topic
	case "n":
		return fmt.Sprint(2 + r.IntN(60))
	case "ms":
		return fmt.Sprint(20 + r.IntN(900))
	case "pct":
		return fmt.Sprint(1 + r.IntN(40))
	case "ver":
		return fmt.Sprintf("v%d.%d.%d", 1+r.IntN(5), r.IntN(20), r.IntN(12))
	case "pr":
		return fmt.Sprint(3000 + r.IntN(2500))
	case "day":
		return pick(r, []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"})
	case "u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9", "u10", "u11", "u12", "u13", "u14":
		var k int
		fmt.Sscanf(name[1:], "%d", &k)
		return pick(r, userFactKinds[k].slots)
	case "city":
		return pick(r, cities)
	case "dish":
		return pick(r, dishes)
	}
	return name
}

// Sentence templates for technical prose. Many share common content words
// on purpose.
var techSentences = []string{
	"The {svc} {word} path goes through {lib}, so any change there shows up in the {word} metrics first.",
	"I checked the {word} logs on {host} and the errors line up with the {word} spikes around the deploy.",
	"{person} mentioned that {svc} already retries twice, so adding another retry layer would multiply the load.",
	"If you look at the {table} table, most of the rows are written by {svc2} rather than {svc}.",
	"The simplest option is to keep the current {word} behaviour and add a metric so we can see how often it happens.",
	"With {concept}, the important part is deciding what happens when the {word} is only partly applied.",
	"We could move this into {lib}, but that couples the {word} layer to the {word} layer, which we have avoided so far.",
	"The p99 for {svc} sits around {ms} ms, and about {pct}% of that is spent waiting on the {word}.",
	"A quick way to confirm it is to run the same {word} against db-staging-1 with the production {word} settings.",
	"There's a config flag for this in {svc}, but it defaults to off and nobody remembers why.",
	"The {word} in {proj} was written before we had {concept}, so it does its own bookkeeping.",
	"I would not change the {table} schema for this; a new column is easy, removing it later is not.",
	"{person} and {person} both reviewed the last change to this {word}, so they're good people to ask.",
	"Keep in mind that {svc2} reads the same {table} rows, so a long transaction here blocks it too.",
	"Most of the time this is fine, but under load the {word} queue backs up and the {word} times out.",
	"We saw something similar last quarter on {host}, and the cause there was an unbounded {word}.",
	"The tests cover the happy path but not the case where the {word} returns an error halfway through.",
	"One more thing: the {lib} version we pin is a bit old, and the newer release changed how {word} errors are reported.",
	"That should be a small change in {svc}, maybe {n} lines plus tests.",
	"It is worth writing down the decision in the {proj} README so the next person doesn't re-litigate it.",
	"The dashboard for {svc} has a panel for this, although the {word} labels there are misleading.",
	"Rolling this out behind a feature flag lets us compare the old and new {word} side by side.",
	"I'd start by adding a log line with the request id, the {word} and the elapsed time, then reproduce it.",
	"The error message is not very helpful; it comes from {lib} and hides the underlying {word} error.",
	"If the {word} is idempotent, retrying is safe; if not, we need {concept} first.",
	"{svc} runs {n} replicas in production and {n} in staging, which explains why staging never shows it.",
	"The migration would need to backfill the {table} table in batches to avoid locking it for too long.",
	"Honestly the cleanest fix is to stop sharing the {word} between {svc} and {svc2}.",
	"We talked about {concept} in the last architecture review and agreed it was worth it for {proj}.",
	"Before changing anything, let's capture a baseline: throughput, error rate and p95 latency for {svc}.",
}

var plainSentences = []string{
	"That makes sense, and it is a common situation.",
	"There are a few ways to approach it, depending on how much time you want to spend.",
	"The main trade-off is between doing it quickly and doing it in a way you won't have to revisit.",
	"A good first step is to write down what you already know and what you still need to find out.",
	"If you want, I can turn this into a checklist you can follow over the next couple of weeks.",
	"It also helps to set a small, concrete goal for the first week rather than a big vague one.",
	"People often underestimate how much time the last ten percent takes.",
	"You don't need to get everything right at once; iterate and adjust as you learn more.",
	"Keep notes as you go, so that next time you can start from them instead of from scratch.",
	"I'd avoid overcommitting at the start; it is easier to add than to cut later.",
	"Let me know how it goes and we can adjust the plan.",
	"The details matter less than being consistent about it.",
	"Most of the advice you'll find online assumes a different situation, so take it with a grain of salt.",
	"Here is a reasonable plan, with the assumptions spelled out so you can change them.",
	"If budget is a concern, there are cheaper options that work almost as well.",
}

var openers = []string{
	"Good question.", "Short answer first, then the details.", "Let's go through it step by step.",
	"Here's how I'd think about it.", "Thanks for the context, that helps.", "Sure.", "Got it.",
	"Okay, a few thoughts.", "Right, so there are two parts to this.", "Here's what I found.",
}

var userOpeners = []string{
	"Hey, quick one.", "Okay so", "Following up on yesterday:", "Can you help me with something?",
	"I need a second pair of eyes on this.", "Random question:", "So here's the situation.",
	"Ugh, this again.", "Morning!", "Another thing while I have you:", "",
}

func techPara(r *rand.Rand, sc scene, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(fill(r, sc, pick(r, techSentences)))
	}
	return b.String()
}

func plainPara(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(pick(r, plainSentences))
	}
	return b.String()
}

func bullets(r *rand.Rand, sc scene, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		s := fill(r, sc, pick(r, techSentences))
		fmt.Fprintf(&b, "%d. %s", i+1, s)
	}
	return b.String()
}

// ident turns a service name into an identifier in a language's style.
func ident(s string, camel bool) string {
	parts := strings.FieldsFunc(s, func(c rune) bool { return c == '-' || c == '_' || c == ' ' || c == '.' })
	if !camel {
		return strings.Join(parts, "_")
	}
	for i := range parts {
		if i > 0 && parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// code returns a fenced code block in lang.
func code(r *rand.Rand, sc scene, lang string) string {
	fn := ident(sc.svc, true)
	tbl := sc.table
	n := 2 + r.IntN(60)
	var body string
	if lang == "go" || lang == "python" || lang == "typescript" || lang == "rust" {
		if r.IntN(3) > 0 {
			return "```" + lang + "\n" + composed(r, sc, lang) + "\n```"
		}
	}
	switch lang {
	case "go":
		body = pick(r, []string{
			fmt.Sprintf("func (s *%sStore) Get(ctx context.Context, id int64) (*%s, error) {\n\tctx, cancel := context.WithTimeout(ctx, %d*time.Second)\n\tdefer cancel()\n\trow := s.pool.QueryRow(ctx, `SELECT id, account_id, amount, created_at FROM %s WHERE id = $1`, id)\n\tvar e %s\n\tif err := row.Scan(&e.ID, &e.AccountID, &e.Amount, &e.CreatedAt); err != nil {\n\t\tif errors.Is(err, pgx.ErrNoRows) {\n\t\t\treturn nil, ErrNotFound\n\t\t}\n\t\treturn nil, fmt.Errorf(\"get %s %%d: %%w\", id, err)\n\t}\n\treturn &e, nil\n}", fn, ident(tbl, true), 1+n%5, tbl, ident(tbl, true), tbl),
			fmt.Sprintf("func retry(ctx context.Context, attempts int, f func() error) error {\n\tvar err error\n\tfor i := 0; i < attempts; i++ {\n\t\tif err = f(); err == nil {\n\t\t\treturn nil\n\t\t}\n\t\tbackoff := time.Duration(1<<i) * %d * time.Millisecond\n\t\tjitter := time.Duration(rand.Int63n(int64(backoff) / 2))\n\t\tselect {\n\t\tcase <-time.After(backoff + jitter):\n\t\tcase <-ctx.Done():\n\t\t\treturn ctx.Err()\n\t\t}\n\t}\n\treturn fmt.Errorf(\"after %%d attempts: %%w\", attempts, err)\n}", 50+n),
			fmt.Sprintf("func Test%sIdempotent(t *testing.T) {\n\tdb := testdb.New(t)\n\tsvc := New(db, zap.NewNop())\n\treq := Request{Key: \"k-%d\", Amount: %d}\n\tfirst, err := svc.Apply(context.Background(), req)\n\trequire.NoError(t, err)\n\tsecond, err := svc.Apply(context.Background(), req)\n\trequire.NoError(t, err)\n\trequire.Equal(t, first.ID, second.ID)\n}", fn, n, n*100),
		})
	case "python":
		body = pick(r, []string{
			fmt.Sprintf("def load_%s(conn, since: datetime) -> pd.DataFrame:\n    query = \"\"\"\n        SELECT *\n        FROM %s\n        WHERE updated_at >= %%(since)s\n        ORDER BY updated_at\n    \"\"\"\n    df = pd.read_sql(query, conn, params={\"since\": since})\n    df[\"amount\"] = df[\"amount\"].astype(\"int64\")\n    return df.drop_duplicates(subset=[\"id\"], keep=\"last\")", ident(tbl, false), tbl),
			fmt.Sprintf("@app.get(\"/%s/{item_id}\")\nasync def get_item(item_id: int, db: Session = Depends(get_db)):\n    item = db.get(%s, item_id)\n    if item is None:\n        raise HTTPException(status_code=404, detail=\"not found\")\n    return item", tbl, ident(tbl, true)),
			fmt.Sprintf("class %sConfig(BaseModel):\n    batch_size: int = %d\n    timeout_s: float = %d.5\n    retries: int = 3\n\n    @field_validator(\"batch_size\")\n    @classmethod\n    def positive(cls, v: int) -> int:\n        if v <= 0:\n            raise ValueError(\"batch_size must be positive\")\n        return v", ident(sc.svc, true), n*50, n%9),
		})
	case "typescript":
		body = pick(r, []string{
			fmt.Sprintf("export function use%s(id: string) {\n  return useQuery({\n    queryKey: [\"%s\", id],\n    queryFn: async () => {\n      const res = await fetch(`/api/%s/${id}`);\n      if (!res.ok) throw new Error(`HTTP ${res.status}`);\n      return Schema.parse(await res.json());\n    },\n    staleTime: %d_000,\n  });\n}", ident(tbl, true), tbl, tbl, n),
			"const Row = z.object({\n  id: z.string().uuid(),\n  amount: z.number().int(),\n  currency: z.enum([\"EUR\", \"USD\", \"GBP\"]),\n  createdAt: z.coerce.date(),\n});\n\nexport type Row = z.infer<typeof Row>;\n\nexport function toCsv(rows: Row[]): string {\n  return rows.map((r) => [r.id, r.amount, r.currency, r.createdAt.toISOString()].join(\",\")).join(\"\\n\");\n}",
		})
	case "rust":
		body = fmt.Sprintf("async fn route(State(state): State<AppState>, Json(alert): Json<Alert>) -> Result<StatusCode, AppError> {\n    let key = alert.dedupe_key();\n    if state.seen.contains(&key).await {\n        tracing::debug!(%%key, \"duplicate alert dropped\");\n        return Ok(StatusCode::ACCEPTED);\n    }\n    state.seen.insert(key, Duration::from_secs(%d)).await;\n    state.notifier.send(&alert).await?;\n    Ok(StatusCode::CREATED)\n}", n*10)
	case "sql":
		body = pick(r, []string{
			fmt.Sprintf("CREATE INDEX CONCURRENTLY IF NOT EXISTS %s_account_created_idx\n    ON %s (account_id, created_at DESC);\n\nANALYZE %s;", tbl, tbl, tbl),
			fmt.Sprintf("SELECT account_id, count(*) AS n, sum(amount) AS total\nFROM %s\nWHERE created_at >= now() - interval '%d days'\nGROUP BY account_id\nHAVING count(*) > %d\nORDER BY total DESC\nLIMIT 20;", tbl, n, n*10),
		})
	case "yaml":
		body = fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\nspec:\n  replicas: %d\n  template:\n    spec:\n      containers:\n        - name: %s\n          image: registry.brightwater.dev/%s:%s\n          resources:\n            requests: {cpu: 250m, memory: %dMi}\n            limits: {memory: %dMi}\n          readinessProbe:\n            httpGet: {path: /healthz, port: 8080}", sc.svc, 2+n%6, sc.svc, sc.svc, fill(r, sc, "{ver}"), 128*(1+n%4), 256*(1+n%4))
	case "hcl":
		body = fmt.Sprintf("resource \"aws_db_instance\" \"%s\" {\n  identifier              = \"%s\"\n  engine                  = \"postgres\"\n  engine_version          = \"16.%d\"\n  instance_class          = \"db.r6g.xlarge\"\n  allocated_storage       = %d\n  backup_retention_period = 14\n  parameter_group_name    = aws_db_parameter_group.pg16.name\n}", ident(sc.svc, false), sc.svc, n%6, 100*(1+n%8))
	default:
		lang = "bash"
		body = fmt.Sprintf("#!/usr/bin/env bash\nset -euo pipefail\nfor svc in %s %s; do\n  kubectl -n prod rollout status deploy/\"$svc\" --timeout=%ds\ndone\npsql \"$DATABASE_URL\" -c 'select count(*) from %s'", sc.svc, pick(r, sc.p.svcs), 60+n, tbl)
	}
	return "```" + lang + "\n" + body + "\n```"
}

func langFor(r *rand.Rand, p *project) string {
	if r.IntN(4) == 0 {
		return pick(r, []string{"sql", "bash", "yaml", "go", "python", "typescript"})
	}
	switch p.lang {
	case "shell":
		return "bash"
	}
	return p.lang
}

// toolOutput is what a shell command printed: test runs, stack traces,
// logs, JSON, diffs, listings.
func toolOutput(r *rand.Rand, sc scene, kind int) string {
	n := 2 + r.IntN(40)
	switch kind % 8 {
	case 0: // go test
		var b strings.Builder
		for i := 0; i < 3+r.IntN(6); i++ {
			fmt.Fprintf(&b, "ok  \tgithub.com/brightwater/%s/internal/%s\t%d.%03ds\n", sc.p.name, pick(r, genericWords), r.IntN(4), r.IntN(1000))
		}
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, "--- FAIL: Test%s (%d.%02ds)\n    %s_test.go:%d: expected %d rows, got %d\nFAIL\nFAIL\tgithub.com/brightwater/%s/internal/%s\t%d.%03ds\n",
				ident(sc.svc, true), r.IntN(3), r.IntN(100), ident(sc.table, false), 20+n, n, n+1, sc.p.name, pick(r, genericWords), r.IntN(4), r.IntN(1000))
		}
		return b.String()
	case 1: // python traceback
		return fmt.Sprintf("Traceback (most recent call last):\n  File \"/app/%s/jobs/%s.py\", line %d, in run\n    rows = load_%s(conn, since)\n  File \"/app/%s/io.py\", line %d, in load_%s\n    df = pd.read_sql(query, conn, params=params)\n  File \"/usr/local/lib/python3.12/site-packages/sqlalchemy/engine/base.py\", line 1418, in execute\n    return meth(self, distilled_parameters, execution_options)\nsqlalchemy.exc.OperationalError: (psycopg.OperationalError) connection to server at \"%s\" (10.0.%d.%d), port 5432 failed: timeout expired",
			sc.p.name, ident(sc.svc, false), 40+n, ident(sc.table, false), sc.p.name, 100+n, ident(sc.table, false), pick(r, hosts), r.IntN(8), 10+r.IntN(200))
	case 2: // go panic
		return fmt.Sprintf("panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x%x]\n\ngoroutine %d [running]:\ngithub.com/brightwater/%s/internal/%s.(*Handler).ServeHTTP(0xc000%04x, {0x1a2b3c0, 0xc0004%03x}, 0xc000%04x)\n\t/src/internal/%s/handler.go:%d +0x%x\nnet/http.serverHandler.ServeHTTP({0xc00012e000?}, {0x1a2b3c0?, 0xc0004a2000?}, 0x6?)\n\t/usr/local/go/src/net/http/server.go:3210 +0x8e\nnet/http.(*conn).serve(0xc0001f6000, {0x1a2d8e8, 0xc000112000})\n\t/usr/local/go/src/net/http/server.go:2092 +0x5f4",
			0x4a0000+r.IntN(0xffff), 100+r.IntN(9000), sc.p.name, ident(sc.svc, false), r.IntN(0xffff), r.IntN(0xfff), r.IntN(0xffff), ident(sc.svc, false), 30+n*3, r.IntN(0xfff))
	case 3: // JSON response
		return fmt.Sprintf("{\n  \"service\": %q,\n  \"status\": %q,\n  \"version\": %q,\n  \"checks\": {\n    \"database\": {\"ok\": %v, \"latency_ms\": %d},\n    \"cache\": {\"ok\": true, \"latency_ms\": %d},\n    \"queue_depth\": %d\n  },\n  \"uptime_s\": %d\n}",
			sc.svc, pick(r, []string{"ok", "degraded"}), fill(r, sc, "{ver}"), r.IntN(5) != 0, n*3, r.IntN(9), n*37, 1000+r.IntN(900000))
	case 4: // diff
		f := ident(sc.svc, false)
		return fmt.Sprintf("diff --git a/internal/%s/config.go b/internal/%s/config.go\nindex %07x..%07x 100644\n--- a/internal/%s/config.go\n+++ b/internal/%s/config.go\n@@ -%d,7 +%d,8 @@ type Config struct {\n \tAddr         string\n-\tTimeout      time.Duration // default 2s\n+\tTimeout      time.Duration // default 5s\n+\tMaxRetries   int\n \tPoolSize     int\n \tLogLevel     string\n \tMetricsAddr  string",
			f, f, r.IntN(0xfffffff), r.IntN(0xfffffff), f, f, 10+n, 10+n)
	case 5: // logs
		var b strings.Builder
		for i := 0; i < 4+r.IntN(8); i++ {
			lvl := pick(r, []string{"INFO", "INFO", "INFO", "WARN", "ERROR"})
			fmt.Fprintf(&b, "2026-%02d-%02dT%02d:%02d:%02d.%03dZ %s %s %s request_id=%08x duration_ms=%d\n", 1+r.IntN(11), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000), lvl, sc.svc,
				pick(r, []string{"request completed", "upstream timeout", "retrying request", "connection reset by peer", "cache miss", "job finished", "slow query"}), r.Uint32(), r.IntN(3000))
		}
		return b.String()
	case 6: // kubectl
		var b strings.Builder
		b.WriteString("NAME                                READY   STATUS             RESTARTS   AGE\n")
		for i := 0; i < 3+r.IntN(4); i++ {
			st := pick(r, []string{"Running", "Running", "Running", "CrashLoopBackOff", "Pending"})
			fmt.Fprintf(&b, "%-35s 1/1     %-18s %-10d %dh\n", fmt.Sprintf("%s-%x-%x", sc.svc, r.Uint32()&0xfffffff, r.Uint32()&0xfffff), st, r.IntN(12), 1+r.IntN(90))
		}
		return b.String()
	default: // rg / ls
		var b strings.Builder
		for i := 0; i < 3+r.IntN(8); i++ {
			fmt.Fprintf(&b, "internal/%s/%s.go:%d:\t%s\n", ident(pick(r, sc.p.svcs), false), pick(r, genericWords), 10+r.IntN(400),
				pick(r, []string{"ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)", "if err != nil {", "return fmt.Errorf(\"apply: %w\", err)", "pool, err := pgxpool.New(ctx, dsn)", "// TODO: retry on serialization failure", "log.Warn(\"slow query\", zap.Duration(\"took\", d))"}))
		}
		return b.String()
	}
}

// shellCommand is a command an agent runs, matched to toolOutput's kinds.
func shellCommand(r *rand.Rand, sc scene, kind int) string {
	switch kind % 8 {
	case 0:
		return "go test ./internal/... -count=1"
	case 1:
		return fmt.Sprintf("python -m %s.jobs.%s --since 2026-01-01", sc.p.name, ident(sc.svc, false))
	case 2:
		return fmt.Sprintf("kubectl -n prod logs deploy/%s --since=1h | grep -A12 panic | head -40", sc.svc)
	case 3:
		return "curl -s http://localhost:8080/healthz | jq ."
	case 4:
		return "git diff HEAD~1 -- internal/"
	case 5:
		return fmt.Sprintf("kubectl -n prod logs deploy/%s --since=30m | tail -n 20", sc.svc)
	case 6:
		return fmt.Sprintf("kubectl -n prod get pods -l app=%s", sc.svc)
	}
	return fmt.Sprintf("rg -n \"%s\" internal/", pick(r, []string{"WithTimeout", "pgxpool", "Errorf", "TODO", "slow query"}))
}
