package lifelike

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// composed builds a function from a pool of statements, so code blocks
// vary as much as real ones do. The result has no fences.
func composed(r *rand.Rand, sc scene, lang string) string {
	verb := pick(r, []string{"load", "apply", "sync", "flush", "validate", "resolve", "fetch", "store", "retry", "build", "merge", "prune", "export", "reconcile"})
	noun := pick(r, []string{sc.table, ident(sc.svc, false), pick(r, genericWords), "batch", "event", "entry", "report", "alert", "account"})
	pool := stmtPools[lang]
	if pool == nil {
		lang, pool = "go", stmtPools["go"]
	}
	ind := "\t"
	if lang != "go" {
		ind = "    "
	}
	var body strings.Builder
	perm := r.Perm(len(pool))
	for i, n := 0, 3+r.IntN(6); i < n && i < len(perm); i++ {
		for k, l := range strings.Split(fill(r, sc, pool[perm[i]]), "\n") {
			if i > 0 || k > 0 {
				body.WriteByte('\n')
			}
			body.WriteString(ind + strings.ReplaceAll(l, "\t", ind))
		}
	}
	switch lang {
	case "python":
		return fmt.Sprintf("def %s_%s(session, items: list[dict], *, limit: int = %d) -> int:\n    \"\"\"%s the %s rows for %s.\"\"\"\n%s\n    return len(items)", verb, ident(noun, false), 100+r.IntN(900), capitalize(verb), noun, sc.svc, body.String())
	case "typescript":
		return fmt.Sprintf("export async function %s%s(client: ApiClient, ids: string[], opts: { limit?: number } = {}): Promise<number> {\n%s\n    return ids.length;\n}", verb, capitalize(ident(noun, true)), body.String())
	case "rust":
		return fmt.Sprintf("pub async fn %s_%s(pool: &PgPool, items: &[Item]) -> anyhow::Result<usize> {\n%s\n    Ok(items.len())\n}", verb, ident(noun, false), body.String())
	}
	return fmt.Sprintf("func (s *Service) %s%s(ctx context.Context, items []Item) (int, error) {\n%s\n\treturn len(items), nil\n}", capitalize(verb), capitalize(ident(noun, true)), body.String())
}

var stmtPools = map[string][]string{
	"go": {
		"ctx, cancel := context.WithTimeout(ctx, {n}*time.Second)\ndefer cancel()",
		"if len(items) == 0 {\n\treturn 0, nil\n}",
		"tx, err := s.pool.Begin(ctx)\nif err != nil {\n\treturn 0, fmt.Errorf(\"begin: %w\", err)\n}\ndefer tx.Rollback(ctx)",
		"for _, it := range items {\n\tif err := s.check(it); err != nil {\n\t\treturn 0, fmt.Errorf(\"item %s: %w\", it.ID, err)\n\t}\n}",
		"s.log.Info(\"{svc} batch\", zap.Int(\"n\", len(items)), zap.String(\"table\", \"{table}\"))",
		"rows, err := tx.Query(ctx, `SELECT id, status FROM {table} WHERE id = ANY($1)`, ids(items))\nif err != nil {\n\treturn 0, err\n}\ndefer rows.Close()",
		"s.metrics.{word}Total.Add(float64(len(items)))",
		"if err := tx.Commit(ctx); err != nil {\n\treturn 0, fmt.Errorf(\"commit {table}: %w\", err)\n}",
		"sort.Slice(items, func(i, j int) bool { return items[i].CreatedAt.Before(items[j].CreatedAt) })",
		"key := fmt.Sprintf(\"{svc}:%s:%d\", items[0].AccountID, len(items))\nif s.cache.Has(key) {\n\treturn 0, nil\n}",
		"// {person} asked for this to stay idempotent; see the {proj} README.",
		"if d := time.Since(start); d > {ms}*time.Millisecond {\n\ts.log.Warn(\"slow {word}\", zap.Duration(\"took\", d))\n}",
	},
	"python": {
		"if not items:\n    return 0",
		"log.info(\"{svc}: %d rows for {table}\", len(items))",
		"with session.begin():\n    session.execute(insert({table}).values(items))",
		"for item in items:\n    if item.get(\"status\") not in VALID_STATUSES:\n        raise ValueError(f\"bad status {item['status']!r}\")",
		"items = sorted(items, key=lambda it: it[\"created_at\"])",
		"df = pl.DataFrame(items).filter(pl.col(\"amount\") > 0)",
		"metrics.counter(\"{word}_total\").inc(len(items))",
		"# {person}: keep this under {n} seconds, the DAG times out otherwise",
		"retry = Retry(total={n}, backoff_factor=0.5, status_forcelist=(502, 503, 504))",
		"if time.monotonic() - start > {n}:\n    log.warning(\"slow {word} in {svc}\")",
	},
	"typescript": {
		"if (ids.length === 0) return 0;",
		"const limit = opts.limit ?? {n}0;",
		"const res = await client.get(`/api/{table}?ids=${ids.join(\",\")}&limit=${limit}`);",
		"if (!res.ok) {\n    throw new Error(`{svc} ${res.status}: ${await res.text()}`);\n}",
		"const rows = RowSchema.array().parse(await res.json());",
		"queryClient.invalidateQueries({ queryKey: [\"{table}\"] });",
		"// {person} wants this behind the {word} flag until the next release",
		"const byAccount = groupBy(rows, (r) => r.accountId);",
		"console.debug(\"{svc}\", { count: rows.length, took: performance.now() - t0 });",
	},
	"rust": {
		"if items.is_empty() {\n    return Ok(0);\n}",
		"let mut tx = pool.begin().await?;",
		"for item in items {\n    sqlx::query(\"INSERT INTO {table} (id, payload) VALUES ($1, $2) ON CONFLICT DO NOTHING\")\n        .bind(item.id)\n        .bind(&item.payload)\n        .execute(&mut *tx)\n        .await?;\n}",
		"tx.commit().await.context(\"commit {table}\")?;",
		"tracing::info!(count = items.len(), \"{svc} batch\");",
		"let deadline = Instant::now() + Duration::from_millis({ms});",
		"// {person}: dedupe window stays at {n} seconds for now",
		"metrics::counter!(\"{word}_total\").increment(items.len() as u64);",
	},
}
