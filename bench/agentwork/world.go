package agentwork

// The world the history is about: one developer's services, colleagues and
// tools, and the families of facts whose identifiers recur with small
// differences (V-261, M-261, F-261; batch_writer.go, batch_reader.go).

var services = []string{
	"ledger-writer", "payments-api", "ingest-worker", "atlas-web", "quarry-sync", "beacon-scheduler",
	"tidewater-gateway", "notify-svc", "auth-proxy", "search-indexer", "billing-cron", "report-builder",
	"media-resizer", "geo-lookup", "audit-trail", "feature-flags", "rate-limiter", "session-store",
	"export-service", "metrics-agent", "inventory-api", "pricing-engine", "webhook-relay", "sensor-hub",
}

var people = []string{"Priya", "Tomasz", "Ines", "Jonas", "Mei", "Rafael", "Aisha", "Lukas", "Noor", "Dmitri", "Hana", "Oskar"}

var hosts = []string{"db-prod-3", "kafka-2", "edge-eu-1", "redis-cache-4", "build-runner-7", "pg-replica-2", "k8s-node-12", "vault-1"}

var packages = []string{"internal/ledger", "internal/ingest", "pkg/httpx", "internal/billing", "cmd/worker", "internal/auth",
	"pkg/retry", "internal/search", "internal/export", "pkg/cache", "internal/sensors", "internal/notify"}

// A topic is what a fact is about, as the conversation says it (said) and
// as a question paraphrases it (asked), with the words a terse agent query
// keeps (short).
type topic struct{ said, asked, short string }

// ticketTopics are incidents and tickets: each family of facts shares one,
// told of several identifiers.
var ticketTopics = []topic{
	{"sensor drift", "readings drifting away from the reference", "sensor drift"},
	{"disk pressure alerts", "disk filling up on the node", "disk pressure"},
	{"replication lag", "replica falling behind the primary", "replication lag"},
	{"certificate expiry warning", "certificate that was about to expire", "cert expiry"},
	{"memory leak", "memory growing until the pod was killed", "memory leak"},
	{"flaky integration test", "test that failed now and then in CI", "flaky test"},
	{"timeout spike", "requests timing out in bursts", "timeout spike"},
	{"queue backlog", "messages piling up in the queue", "queue backlog"},
	{"clock skew", "clocks out of sync between hosts", "clock skew"},
	{"p99 latency regression", "slow tail latency after the deploy", "p99 latency"},
	{"duplicate webhook deliveries", "webhooks being delivered twice", "duplicate webhooks"},
	{"stuck migration", "schema migration that never finished", "stuck migration"},
}

// ticketPrefixes: the short ones recur with one number (V-261, M-261,
// F-261), the long ones with near numbers (INC-4821, INC-4812).
var shortPrefixes = []string{"V", "M", "F", "K", "P", "T", "S", "R"}
var longPrefixes = []string{"INC", "OPS", "SEC", "BUG", "PERF", "SUP"}

// errorCodes are error names as code prints them; families share a stem.
var errorCodes = [][]string{
	{"ERR_CONN_RESET", "ERR_CONN_REFUSED", "ERR_CONN_TIMEOUT"},
	{"E_POOL_TIMEOUT", "E_POOL_EXHAUSTED", "E_POOL_CLOSED"},
	{"ERR_TLS_HANDSHAKE", "ERR_TLS_CERT_EXPIRED", "ERR_TLS_VERSION"},
	{"ERR_STREAM_PREMATURE_CLOSE", "ERR_STREAM_WRITE_AFTER_END", "ERR_STREAM_DESTROYED"},
	{"SQLSTATE_40001", "SQLSTATE_40P01", "SQLSTATE_53300"},
	{"ENOSPC", "EMFILE", "ENOMEM"},
	{"ERR_RATE_LIMITED", "ERR_QUOTA_EXCEEDED", "ERR_BUDGET_EXCEEDED"},
}

// fileStems are source files; a family is one stem's file, its test and
// its sibling (batch_writer.go, batch_writer_test.go, batch_reader.go).
var fileStems = [][2]string{
	{"batch_writer", "batch_reader"}, {"retry_policy", "retry_budget"}, {"token_bucket", "token_store"},
	{"schema_migrate", "schema_check"}, {"cache_warmup", "cache_evict"}, {"webhook_sign", "webhook_verify"},
	{"parse_header", "parse_trailer"}, {"sensor_calib", "sensor_filter"}, {"price_rules", "price_cache"},
	{"export_csv", "export_json"}, {"session_gc", "session_lock"}, {"flag_eval", "flag_sync"},
}

// fileBugs are what a change to a file was for.
var fileBugs = []topic{
	{"retry storm after a failover", "retries hammering the database after a failover", "retry storm"},
	{"off-by-one in the page cursor", "cursor skipping a row between pages", "page cursor off-by-one"},
	{"panic on an empty batch", "crash when the batch was empty", "empty batch panic"},
	{"wrong timezone in the daily cut-off", "daily cut-off happening at the wrong hour", "timezone cut-off"},
	{"unbounded goroutines under load", "goroutines piling up under load", "goroutine leak"},
	{"stale reads after a write", "reads returning old data right after a write", "stale reads"},
}

// versionBugs are regressions shipped in a release.
var versionBugs = []topic{
	{"broke gzip responses for large bodies", "large responses coming back corrupted", "gzip regression"},
	{"doubled the connection count", "connection count jumping to twice normal", "connection count regression"},
	{"dropped the tenant header on retries", "tenant header missing on retried calls", "tenant header regression"},
	{"slowed startup to forty seconds", "startup taking forty seconds", "slow startup regression"},
	{"mis-parsed ISO week dates", "week numbers coming out wrong", "week date regression"},
}

// causes and fixes make a fact's answer; each fact draws its own pair, so
// siblings differ in what they say.
var causes = []string{
	"a stale calibration table loaded at boot", "the connection pool capped at 10", "a missing index on events(created_at)",
	"an expired intermediate certificate in the bundle", "a retry loop without jitter", "GC pauses from a 6 GB heap",
	"a race in the cache warmup", "NTP pointing at a decommissioned server", "a consumer group stuck on a poison message",
	"a cron job running in UTC instead of local time", "an N+1 query in the list endpoint", "log rotation filling /var",
	"a feature flag left on for every tenant", "a dependency bump that changed the default timeout",
	"a long-running transaction holding a lock", "the load balancer idle timeout shorter than the keepalive",
}

var fixes = []struct{ text, answer string }{
	{"pinned the firmware to 3.2.7 and reloaded the table", "3.2.7"},
	{"raised max_idle_conns to 64", "max_idle_conns to 64"},
	{"added the index concurrently during the quiet window", "index concurrently"},
	{"rotated the bundle and added an expiry check to the health probe", "expiry check"},
	{"added full jitter with a 30 s cap", "30 s cap"},
	{"set GOMEMLIMIT to 4GiB", "GOMEMLIMIT"},
	{"moved the warmup behind a sync.Once", "sync.Once"},
	{"pointed chrony at pool.ntp.org", "chrony"},
	{"sent the poison message to the dead-letter topic", "dead-letter"},
	{"set CRON_TZ=Europe/Berlin", "CRON_TZ"},
	{"batched the lookups with an IN list", "IN list"},
	{"capped the logs at 500 MB with logrotate", "500 MB"},
	{"scoped the flag to the beta tenants", "beta tenants"},
	{"set the client timeout back to 15 s explicitly", "15 s"},
	{"split the job into batches of 5,000 rows", "5,000 rows"},
	{"raised the idle timeout to 350 s", "350 s"},
	{"rolled back to the previous image and added a canary", "canary"},
	{"wrapped the handler in a semaphore of 32", "semaphore of 32"},
}

// Filler vocabulary for prose, code and logs.
var (
	verbs      = []string{"check", "retry", "flush", "drain", "reload", "rotate", "validate", "sync", "compact", "reindex", "throttle", "batch"}
	nouns      = []string{"request", "batch", "record", "cursor", "offset", "tenant", "event", "snapshot", "worker", "lease", "token", "chunk", "span", "metric"}
	adjectives = []string{"pending", "stale", "primary", "cached", "partial", "expired", "retried", "sharded", "idle", "queued"}
	libs       = []string{"pgx", "sqlc", "zap", "otel", "redis-go", "kafka-go", "chi", "grpc-go", "testify", "fastapi", "pydantic", "sqlalchemy", "celery", "zod", "prisma"}
	smallTalk  = []string{
		"What's a good way to keep basil alive indoors over winter?",
		"Can you suggest a three-day itinerary for Porto?",
		"How long should I rest sourdough before shaping?",
		"Help me write a short thank-you note to my neighbour who watered the plants.",
		"What's the difference between a stock and a broth?",
		"Any tips for running a first half marathon in the heat?",
		"Explain how a heat pump works in simple terms.",
		"What should I pack for a weekend of hiking in the rain?",
	}
)
