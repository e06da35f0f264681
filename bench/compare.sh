#!/usr/bin/env bash
# Compares in-process times against the last committed results with
# benchstat: runs a short in-process suite (the same pinned, GOMAXPROCS=1,
# round-by-round way as run-inprocess.sh) and prints benchstat old vs new.
# Time is reported, not gated: on a shared machine it moves; allocations are
# gated by TestAllocBudgets.
#
# Usage: ./compare.sh [bench regexp] [count]
#   defaults: "." (every benchmark) and 5 rounds; BENCHTIME (default 200ms).
#   Example: ./compare.sh 'Minimal|JSON|Middleware' 5
# Old: the newest results/inprocess-*.txt in the last commit (HEAD). New:
# kept in results/.compare-new.txt (not committed).
set -euo pipefail

pattern=${1:-.}
count=${2:-5}
case $count in '' | *[!0-9]*)
	echo "usage: $0 [bench regexp] [count]" >&2
	exit 2
	;;
esac
cd "$(dirname "$0")"

old_path=$(git ls-tree --name-only HEAD results/ 2>/dev/null | grep -E '^results/inprocess-[0-9-]+\.txt$' | sort | tail -n1 || true)
if [ -z "$old_path" ]; then
	echo "no committed results/inprocess-*.txt to compare with (run ./run-inprocess.sh and commit it)" >&2
	exit 1
fi
benchstat=$(command -v benchstat || true)
if [ -z "$benchstat" ] && [ -x "$(go env GOPATH)/bin/benchstat" ]; then
	benchstat=$(go env GOPATH)/bin/benchstat
fi
if [ -z "$benchstat" ]; then
	echo "installing benchstat (go install golang.org/x/perf/cmd/benchstat@latest)" >&2
	go install golang.org/x/perf/cmd/benchstat@latest
	benchstat=$(go env GOPATH)/bin/benchstat
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Keep the benchmark lines and the keys that name the package; the run's own
# configuration (commit, date, ...) would make benchstat split the tables.
keep='^(Benchmark|goos:|goarch:|pkg:)'
git show "HEAD:bench/$old_path" | grep -E "$keep" >"$tmp/old.txt"

pin=()
if command -v taskset >/dev/null 2>&1; then
	pin=(taskset -c "${CPU:-$(($(nproc) - 1))}")
fi
go test -c -o "$tmp/bench.test" .
new=results/.compare-new.txt
: >"$new"
for round in $(seq 1 "$count"); do
	echo "round $round of $count" >&2
	"${pin[@]}" "$tmp/bench.test" -test.run '^$' -test.bench "$pattern" -test.benchmem -test.cpu 1 \
		-test.benchtime "${BENCHTIME:-200ms}" >"$tmp/round.txt" || { cat "$tmp/round.txt" >&2; exit 1; }
	if [ "$round" = 1 ]; then
		grep -E "$keep" "$tmp/round.txt" >>"$new"
	else
		grep '^Benchmark' "$tmp/round.txt" >>"$new"
	fi
done
cp "$new" "$tmp/new.txt"
# Only the benchmarks this run measured (the pattern may select a few).
mv "$tmp/old.txt" "$tmp/old-all.txt"
awk 'NR == FNR { if ($1 ~ /^Benchmark/) names[$1] = 1; next } $1 !~ /^Benchmark/ || ($1 in names)' \
	"$tmp/new.txt" "$tmp/old-all.txt" >"$tmp/old.txt"
echo "old: $old_path at $(git rev-parse --short=12 HEAD); new: this tree, $count rounds of -benchtime ${BENCHTIME:-200ms}" >&2
cd "$tmp" && "$benchstat" old.txt new.txt
