#!/usr/bin/env bash
# run.sh: the TechEmpower tests, Plinth (cmd/tfb-server) against go-std,
# fiber and gin (peers/), on one PostgreSQL database, loaded by wrk.
#
# It builds the four servers, creates the TFB schema (setup-db.sh), checks
# every implementation with cmd/tfb-verify (skipped, with a message, when it
# does not build), then loads each test at each level with wrk, the order of
# the implementations rotated each round, and writes the medians to
# ../results/tfb-<date>.md and .json. All four servers run at once, pinned to
# SERVER_CPU; wrk runs pinned to CLIENT_CPU, and so does the local
# PostgreSQL (DB_CPU) while the run lasts.
#
# TFB's levels are scaled down for a 2-core machine (its full ladder is
# 16..512 connections for json/db/fortunes, 1..20 queries, 1..100 cached
# rows, pipelined plaintext at 256..16384 connections, 15 s each).
#
# Environment (defaults in brackets):
#   DATABASE_URL    [postgres://postgres@127.0.0.1:5432/hello_world?sslmode=disable]
#   IMPLS           implementations, first is the one rotated from [plinth go-std fiber gin];
#                   plinth-fast is tfb-server on Plinth's own engine (PLINTH_ENGINE=fast)
#   TESTS           [json db fortunes queries updates cached-queries plaintext]
#   CONNS           connections of json, db and fortunes [64 256]
#   QUERY_CONNS     connections of queries, updates and cached-queries [512]
#   QUERIES         rows per request of queries and updates [1 20]
#   CACHED          rows per request of cached-queries [1 100]
#   PIPELINE_CONNS  connections of plaintext [256]
#   PIPELINE_DEPTH  requests per write of plaintext [16]
#   DURATION        seconds per measured run [5]
#   WARMUP          seconds of warm-up per test and implementation, first round only [2]
#   RUNS            measured runs (rounds); the table shows the median [3]
#   SERVER_CPU, CLIENT_CPU, WRK_THREADS  [0, 1, 1]
#   DB_CPU          CPUs the local PostgreSQL is pinned to during the run (restored after), so that it does not
#                   take the server's CPU: the stand-in for TFB's separate database host; "" leaves it alone [CLIENT_CPU]
#   VERIFY          0 skips tfb-verify [1]
#   PORT_BASE       the servers listen on 127.0.0.1:PORT_BASE+1, +2, ... [18080]
#   TITLE           the results' title, before the date [TechEmpower benchmark]
#   PLINTH_DATABASE_MAX_CONNS  pool size of every implementation [data's default, max(4, 4*GOMAXPROCS)]
#   OUT             results file stem [../results/tfb-<date>]
#
# Quick smoke test: RUNS=1 DURATION=2 WARMUP=1 ./run.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
: "${DATABASE_URL:=postgres://postgres@127.0.0.1:5432/hello_world?sslmode=disable}"
: "${IMPLS:=plinth go-std fiber gin}"
: "${TESTS:=json db fortunes queries updates cached-queries plaintext}"
: "${CONNS:=64 256}"
: "${QUERY_CONNS:=512}"
: "${QUERIES:=1 20}"
: "${CACHED:=1 100}"
: "${PIPELINE_CONNS:=256}"
: "${PIPELINE_DEPTH:=16}"
: "${DURATION:=5}"
: "${WARMUP:=2}"
: "${RUNS:=3}"
: "${SERVER_CPU:=0}"
: "${CLIENT_CPU:=1}"
: "${DB_CPU=$CLIENT_CPU}"
: "${WRK_THREADS:=1}"
: "${VERIFY:=1}"
: "${PORT_BASE:=18080}"
: "${TITLE:=TechEmpower benchmark}"
date=$(date -u +%F)
: "${OUT:=$here/../results/tfb-$date}"
export DATABASE_URL

bin=$(mktemp -d)
rawdir=$bin/raw
mkdir -p "$rawdir"
pids=()
# shellcheck source=lib.sh
. "$here/lib.sh"
trap 'stop_servers; unpin_database; rm -rf "$bin"' EXIT

read -r -a impls <<<"$IMPLS"
read -r -a tests <<<"$TESTS"

echo "== build"
build_all

echo "== database"
"$here/setup-db.sh" "$DATABASE_URL"
pin_database

echo "== servers (pinned to CPU $SERVER_CPU: GOMAXPROCS $(taskset -c "$SERVER_CPU" nproc))"
declare -A port spid
p=$PORT_BASE
for impl in "${impls[@]}"; do
	p=$((p + 1))
	port[$impl]=$p
	start_server "$impl" "$p"
	spid[$impl]=${pids[-1]}
	echo "$impl on 127.0.0.1:$p"
done

verified="not run (VERIFY=0)"
if [ "$VERIFY" = 1 ]; then
	echo "== verify"
	if (cd "$here" && go build -o "$bin/tfb-verify" ./cmd/tfb-verify) 2>"$rawdir/verify-build.log"; then
		verified=""
		for impl in "${impls[@]}"; do
			if "$bin/tfb-verify" -url "http://127.0.0.1:${port[$impl]}" -db "$DATABASE_URL" >"$rawdir/verify-$impl.log" 2>&1; then
				echo "$impl: $(tail -1 "$rawdir/verify-$impl.log")"
				verified+="$impl: $(tail -1 "$rawdir/verify-$impl.log" | sed 's/^tfb-verify: //'); "
			else
				echo "$impl: tfb-verify FAILED:"
				grep -E '^(FAIL|WARN)' "$rawdir/verify-$impl.log" || tail -20 "$rawdir/verify-$impl.log"
				verified+="$impl: FAILED; "
			fi
		done
	else
		echo "tfb-verify does not build yet; skipping verification:"
		head -5 "$rawdir/verify-build.log"
		verified="skipped (cmd/tfb-verify did not build)"
	fi
fi

# levels_of TEST prints the levels of a test, each "label conns param".
levels_of() {
	local x
	case $1 in
	json | db | fortunes) for x in $CONNS; do echo "c=$x $x -"; done ;;
	queries | updates) for x in $QUERIES; do echo "q=$x,c=$QUERY_CONNS $QUERY_CONNS $x"; done ;;
	cached-queries) for x in $CACHED; do echo "n=$x,c=$QUERY_CONNS $QUERY_CONNS $x"; done ;;
	plaintext) echo "c=$PIPELINE_CONNS,pipeline=$PIPELINE_DEPTH $PIPELINE_CONNS -" ;;
	esac
}

raw=$bin/raw.tsv
: >"$raw"
n=${#impls[@]}
echo "== load: ${DURATION}s per run, $RUNS run(s), warm-up ${WARMUP}s per test and implementation in round 1"
for round in $(seq 1 "$RUNS"); do
	order=()
	for i in $(seq 0 $((n - 1))); do
		order+=("${impls[$(((i + round - 1) % n))]}")
	done
	echo "-- round $round: ${order[*]}"
	for t in "${tests[@]}"; do
		first=1
		while read -r label conns param; do
			for impl in "${order[@]}"; do
				url=$(url_of "$t" "$param" "${port[$impl]}")
				depth=""
				[ "$t" = plaintext ] && depth=$PIPELINE_DEPTH
				if [ "$round" = 1 ] && [ "$first" = 1 ] && [ "$WARMUP" != 0 ]; then
					run_wrk "$rawdir/warmup.txt" "$WARMUP" "$conns" "$url" "$(accept_of "$t")" "$depth"
				fi
				out="$rawdir/$t-$label-$impl-$round.txt"
				t0=$(cpu_ticks "${spid[$impl]}")
				run_wrk "$out" "$DURATION" "$conns" "$url" "$(accept_of "$t")" "$depth"
				t1=$(cpu_ticks "${spid[$impl]}")
				read -r rps p99 errs < <(parse_wrk "$out")
				cpu=$(cpu_per_request "$t0" "$t1" "$rps" "$DURATION")
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$label" "$impl" "$round" "$rps" "$p99" "$errs" "$cpu" >>"$raw"
				printf '%-15s %-22s %-7s %12s req/s  p99 %8s ms  errors %s  server CPU %s us/req\n' "$t" "$label" "$impl" "$rps" "$p99" "$errs" "$cpu"
			done
			first=0
		done < <(levels_of "$t")
	done
done

stop_servers
notes=$bin/notes.md
{
	extra=""
	[ "$IMPLS" = "plinth go-std fiber gin" ] || extra+="IMPLS=\"$IMPLS\" "
	[ "$TESTS" = "json db fortunes queries updates cached-queries plaintext" ] || extra+="TESTS=\"$TESTS\" "
	[ "$TITLE" = "TechEmpower benchmark" ] || extra+="TITLE=\"$TITLE\" "
	echo "Command: \`cd bench/tfb && ${extra}RUNS=$RUNS DURATION=$DURATION WARMUP=$WARMUP ./run.sh\` ($(date -u '+%F %H:%M UTC'))."
	echo
	echo "- levels scaled down for this 2-core machine: json, db, fortunes at $CONNS connections; queries and updates at $QUERY_CONNS connections with $QUERIES rows; cached-queries at $QUERY_CONNS connections with $CACHED rows; plaintext pipelined (depth $PIPELINE_DEPTH) at $PIPELINE_CONNS connections. ${DURATION} s per run, median of $RUNS run(s), implementation order rotated each round, ${WARMUP} s warm-up per test and implementation in the first round."
	procs=$(taskset -c "$SERVER_CPU" nproc)
	pool=${PLINTH_DATABASE_MAX_CONNS:-$((4 * procs > 4 ? 4 * procs : 4))}
	echo "- every implementation: the same pgx Store (internal/tfb) and pool size $pool (data's default is max(4, 4*GOMAXPROCS)); JSON through each framework's own encoding/json path; the four servers run at once, idle but for the one loaded."
	echo "- tfb-verify: $verified"
	machine_notes
} >"$notes"
mkdir -p "$(dirname "$OUT")"
"$bin/tfb-report" -in "$raw" -columns "$(
	IFS=,
	echo "${impls[*]}"
)" -base go-std -title "$TITLE ($date)" -notes "$notes" -md "$OUT.md" -json "$OUT.json"

echo "== wrote $OUT.md and $OUT.json"
cat "$OUT.md"
