package lifelike

// The world the history is about: one person (a backend engineer) with
// recurring projects, colleagues, services, hosts and libraries, and a
// life outside work. Everything recurs across many conversations, so most
// content words are common.

type project struct {
	name    string // the repository, and the folder it is checked out in
	key     string // ticket prefix
	lang    string // main language: go, python, typescript, rust, hcl
	desc    string
	svcs    []string
	libs    []string
	tables  []string
	remote  string
	branch  []string
	workdir string
}

var projects = []*project{
	{name: "ledgerline", key: "LED", lang: "go", desc: "the payments ledger service",
		svcs:   []string{"payments-api", "ledger-writer", "settlement-cron", "refund-worker"},
		libs:   []string{"pgx", "sqlc", "chi", "zap", "testify", "river", "opentelemetry-go"},
		tables: []string{"ledger_entries", "accounts", "settlements", "refunds", "idempotency_keys"},
		remote: "git@github.com:brightwater/ledgerline.git", branch: []string{"main", "fix/idempotency", "feat/multi-currency", "chore/pgx-v5"},
		workdir: "/home/sam/src/ledgerline"},
	{name: "atlas", key: "ATL", lang: "typescript", desc: "the internal operations dashboard",
		svcs:   []string{"atlas-web", "atlas-bff", "report-exporter"},
		libs:   []string{"react-query", "zod", "vite", "playwright", "tailwind", "msw", "recharts"},
		tables: []string{"saved_views", "report_jobs", "users"},
		remote: "git@github.com:brightwater/atlas.git", branch: []string{"main", "feat/saved-views", "fix/csv-export", "chore/vite-6"},
		workdir: "/home/sam/src/atlas"},
	{name: "quarry", key: "QRY", lang: "python", desc: "the analytics ingestion pipeline",
		svcs:   []string{"quarry-ingest", "quarry-dbt", "events-loader", "daily-rollup"},
		libs:   []string{"pandas", "polars", "airflow", "dbt", "pydantic", "sqlalchemy", "pytest"},
		tables: []string{"raw_events", "sessions_daily", "merchant_dim", "fx_rates"},
		remote: "git@github.com:brightwater/quarry.git", branch: []string{"main", "fix/late-events", "feat/polars", "chore/airflow-2.10"},
		workdir: "/home/sam/src/quarry"},
	{name: "beacon", key: "BCN", lang: "rust", desc: "the alert router",
		svcs:   []string{"beacon-router", "beacon-notifier", "pager-bridge"},
		libs:   []string{"tokio", "axum", "serde", "reqwest", "tracing", "sqlx"},
		tables: []string{"alerts", "routes", "silences"},
		remote: "git@github.com:brightwater/beacon.git", branch: []string{"main", "feat/dedupe-window", "fix/backoff"},
		workdir: "/home/sam/src/beacon"},
	{name: "tidewater", key: "OPS", lang: "hcl", desc: "the infrastructure repo (Terraform and Helm)",
		svcs:   []string{"postgres-primary", "redis-cache", "kafka-cluster", "ingress-nginx", "argo-cd"},
		libs:   []string{"terraform", "helm", "argo-cd", "karpenter", "external-dns", "cert-manager"},
		tables: []string{"ledger_entries", "raw_events"},
		remote: "git@github.com:brightwater/tidewater.git", branch: []string{"main", "ops/pg16-upgrade", "ops/karpenter"},
		workdir: "/home/sam/src/tidewater"},
	{name: "pantry", key: "", lang: "python", desc: "my recipe and meal-planning side project",
		svcs:   []string{"pantry-api", "pantry-scraper"},
		libs:   []string{"fastapi", "sqlite", "pydantic", "httpx", "pytest", "htmx"},
		tables: []string{"recipes", "ingredients", "meal_plans"},
		remote: "", branch: []string{"main"},
		workdir: "/home/sam/code/pantry"},
	{name: "homelab", key: "", lang: "shell", desc: "my home server setup",
		svcs:   []string{"jellyfin", "nextcloud", "pihole", "restic-backup", "caddy"},
		libs:   []string{"docker-compose", "proxmox", "zfs", "restic", "tailscale"},
		tables: []string{"oc_filecache"},
		remote: "", branch: []string{"main"},
		workdir: "/home/sam/homelab"},
}

var people = []string{"Priya", "Marcus", "Elena", "Tomás", "Wen", "Dara", "Kofi", "Ines", "Sasha", "Noor", "Rafael", "Jun"}

var hosts = []string{"db-prod-1", "db-prod-2", "db-prod-3", "db-staging-1", "cache-prod-2", "build-runner-07",
	"build-runner-11", "edge-eu-1", "edge-us-2", "kafka-3", "bastion-1", "worker-pool-b"}

var concepts = []string{"connection pooling", "idempotency keys", "exponential backoff", "circuit breakers",
	"optimistic locking", "database indexes", "cache invalidation", "structured logging", "feature flags",
	"blue-green deploys", "rate limiting", "message queues", "eventual consistency", "schema migrations",
	"load shedding", "distributed tracing", "retries with jitter", "read replicas", "partitioned tables",
	"dead-letter queues", "canary releases", "health checks", "graceful shutdown", "back-pressure"}

var genericWords = []string{"service", "database", "deploy", "error", "timeout", "config", "test", "queue",
	"latency", "request", "migration", "cache", "release", "dashboard", "metrics", "logs", "query", "index",
	"worker", "retry", "job", "schema", "branch", "pipeline", "alert", "endpoint", "client", "server",
	"table", "rollback", "build", "container", "cluster", "replica", "connection", "batch", "token"}

var cities = []string{"Lisbon", "Kyoto", "Montreal", "Edinburgh", "Oaxaca", "Copenhagen", "Porto", "Vienna",
	"Seoul", "Valencia", "Reykjavik", "Chicago"}

var dishes = []string{"shakshuka", "mushroom risotto", "chana masala", "pad see ew", "lentil soup",
	"banana bread", "focaccia", "chicken tikka", "miso salmon", "ratatouille", "pierogi", "bibimbap"}

var months = []string{"January", "February", "March", "April", "May", "June", "July", "August",
	"September", "October", "November", "December"}
