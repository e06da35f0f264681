#!/usr/bin/env bash
# Instructions per request over real HTTP, counted by valgrind's callgrind:
# exact and repeatable whatever else the machine does, unlike req/s. For each
# framework, cmd/instr serves the scenario on loopback and sends it N
# keep-alive requests from the same process; a run with no requests is
# subtracted. "server" counts what runs below net/http's per-connection loop
# ((*conn).serve: reading, routing, middleware, handler, writing; not the
# client, the scheduler or the garbage collector), "process" everything.
#
# Usage: ./run-instr.sh [requests] [scenario]     (defaults: 20000 minimal)
#   FRAMEWORKS (default "plinth-new plinth std-limits std-defaults std")
# Writes results/instr-<date>.md. Needs valgrind (Debian: valgrind).
set -euo pipefail
cd "$(dirname "$0")"
n=${1:-20000}
sc=${2:-minimal}
frameworks=${FRAMEWORKS:-plinth-new plinth std-limits std-defaults std}
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
mkdir -p results bin
go build -o bin/ ./cmd/instr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() { # framework requests -> "server process" instruction totals
	local out=$tmp/cg.$1.$2
	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$out" \
		--toggle-collect='net/http.(*conn).serve' bin/instr -framework "$1" -scenario "$sc" -n "$2" -c 4 >/dev/null 2>"$out.log" ||
		{ cat "$out.log" >&2; exit 1; }
	local server process
	server=$(grep -m1 '^summary:' "$out" | awk '{print $2}')
	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$out.all" \
		bin/instr -framework "$1" -scenario "$sc" -n "$2" -c 4 >/dev/null 2>"$out.log" ||
		{ cat "$out.log" >&2; exit 1; }
	process=$(grep -m1 '^summary:' "$out.all" | awk '{print $2}')
	echo "$server $process"
}

date=$(date -u +%F)
md=results/instr-$date.md
{
	echo "# Instructions per request over real HTTP ($sc)"
	echo
	echo "Command: \`bench/run-instr.sh $n $sc\` (FRAMEWORKS=\"$frameworks\"). callgrind (valgrind $(valgrind --version | sed 's/valgrind-//')),"
	echo "$n keep-alive requests over 4 connections on loopback, less a run with none; commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo none),"
	echo "$(go env GOVERSION), $(uname -r). Server: below net/http's \`(*conn).serve\`; process: everything, the client included."
	echo
	echo "| framework | server instr/req | ratio to std-limits | process instr/req |"
	echo "|---|---:|---:|---:|"
} >"$md"
declare -A srv proc
for fw in $frameworks; do
	read -r s0 p0 < <(count "$fw" 0)
	read -r s1 p1 < <(count "$fw" "$n")
	srv[$fw]=$(((s1 - s0) / n))
	proc[$fw]=$(((p1 - p0) / n))
	echo "$fw: server ${srv[$fw]}, process ${proc[$fw]} instructions per request" >&2
done
base=${srv[std-limits]:-}
for fw in $frameworks; do
	ratio="-"
	if [ -n "$base" ]; then ratio=$(awk -v a="${srv[$fw]}" -v b="$base" 'BEGIN{printf "%.2f", a/b}'); fi
	echo "| $fw | ${srv[$fw]} | $ratio | ${proc[$fw]} |" >>"$md"
done
echo "wrote $md" >&2
