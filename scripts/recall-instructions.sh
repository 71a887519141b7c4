#!/usr/bin/env bash
# recall-instructions.sh [Q]: instructions a recall on the heavy memory,
# counted by callgrind, repeatable to about 0.1M between runs of one build
# (BENCHMARKS.md, seventh round). The collector is off: with it on, its
# pacing follows the clock and runs of one build differ by up to 2.4M a
# recall. Q recalls (default 300) minus one recall's run (the dataset's
# generation), over Q-1.
set -euo pipefail
q=${1:-300}
if ! [ "$q" -gt 1 ] 2>/dev/null; then
	echo "recall-instructions: Q must be a number above 1 (one recall's run is the baseline), not $q" >&2
	exit 2
fi
cache=${IRENEO_BENCH_CACHE:-$HOME/.cache/ireneo-bench}
if ! command -v valgrind >/dev/null; then
	echo "recall-instructions: valgrind is missing (sudo apt-get install valgrind)" >&2
	exit 1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/bench-speed" ./bench/cmd/bench-speed
"$dir/bench-speed" -cache "$cache" -build-only >/dev/null
count() {
	GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
		--callgrind-out-file="$dir/cg.$1" "$dir/bench-speed" -cache "$cache" -no-mcp -q "$1" -starts 0 >"$dir/log.$1" 2>&1
	awk '/^totals:/ {print $2}' "$dir/cg.$1"
}
one=$(count 1)
all=$(count "$q")
echo "commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with uncommitted changes)'): $all instructions for $q recalls, $one for 1"
awk -v a="$all" -v o="$one" -v q="$q" 'BEGIN {printf "%.2fM instructions a recall\n", (a-o)/(q-1)/1e6}'
