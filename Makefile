# Ireneo. `make run` and `make test` install what is missing first.
GO       ?= go
BIN      := bin/ireneo
TAGS     ?=
TESTFLAGS ?= -timeout 40m
# staticcheck, pinned; `go run` fetches it from the Go module proxy once.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
export LANG ?= en_US.UTF-8

.PHONY: all run build test lint bench bench-recall bench-instructions deps package fmt vet clean

all: build

deps:
	@scripts/deps.sh

build: deps
	$(GO) build -tags "$(TAGS)" -o $(BIN) .

run: build
	./$(BIN)

# FUZZTIME bounds the engine's exactness fuzzing (pruned top-k = exhaustive)
# that `make test` runs after the tests; its seeds run with the tests too.
FUZZTIME ?= 20s

test: deps lint
	IRENEO_HARNESS_REQUIRED=$$([ "$${IRENEO_HARNESSES:-}" = some ] || echo 1) scripts/test-session.sh $(GO) test -tags "$(TAGS)" $(TESTFLAGS) ./...
	$(GO) test -tags "$(TAGS)" ./engine -run '^$$' -fuzz '^FuzzSearchExact$$' -fuzztime $(FUZZTIME)

# lint: formatting, a tidy go.mod, vet and staticcheck, on the whole tree.
lint:
	gofmt -l . | (! grep .) || (echo "gofmt: files above need formatting"; exit 1)
	$(GO) mod tidy -diff || (echo "go mod tidy: go.mod/go.sum above are not tidy; run go mod tidy"; exit 1)
	$(GO) vet -tags "$(TAGS)" ./...
	$(GO) run $(STATICCHECK) -tags "$(TAGS)" ./...

# bench: every package's benchmarks, then recall at a heavy user's scale
# (bench-speed: 10,000 lifelike conversations, ~21M tokens, built once into
# ~/.cache/ireneo-bench, which test-session.sh's private HOME would
# otherwise hide; the plain-FTS5 floor, in process, MCP HTTP, `ireneo mcp`
# start and `serve` RSS, in one run), headed by the commit measured.
bench: deps
	@echo "commit $$(git rev-parse --short HEAD 2>/dev/null)$$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)'); $$(uptime)"
	scripts/test-session.sh $(GO) test -tags "$(TAGS)" -run '^$$' -bench . -benchtime 1x -timeout 60m ./...
	scripts/test-session.sh $(GO) run -tags "$(TAGS)" ./bench/cmd/bench-speed -q 100 -cache "$(HOME)/.cache/ireneo-bench"

bench-recall: deps
	$(GO) run -tags "$(TAGS)" ./bench/cmd/bench-recall

# bench-instructions: instructions a recall on the heavy memory (callgrind,
# the collector off): the figure to compare two builds by when timings are
# too noisy, repeatable to about 0.1M a recall.
bench-instructions: deps
	scripts/recall-instructions.sh

package: deps
	$(GO) run fyne.io/tools/cmd/fyne@v1.7.4 package -os linux -release -name Ireneo -icon assets/icon.png

fmt:
	gofmt -w .

vet:
	$(GO) vet ./...

clean:
	rm -rf bin dist
