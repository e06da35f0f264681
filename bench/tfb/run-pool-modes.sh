#!/usr/bin/env bash
# run-pool-modes.sh: how Plinth's TFB server (cmd/tfb-server) reaches
# PostgreSQL, measured on /db and /queries?queries=20 at 512 connections:
#
#   default         data.Open's pool: max(4, 4*GOMAXPROCS) connections
#   ping            the same with PLINTH_DATABASE_PING_ON_CHECKOUT=true
#   pool-1x/2x/4x   PLINTH_DATABASE_MAX_CONNS = 1, 2, 4 x GOMAXPROCS
#   per-worker      TFB_POOL_MODE=per-worker: GOMAXPROCS goroutines, each
#                   owning one pgx.Conn, fed over a channel
#
# Each mode runs as its own server (all started at once, pinned to
# SERVER_CPU, idle but for the one loaded); the order of the modes rotates
# each round. Writes ../results/pool-modes-<date>.md with the command at its
# top.
#
# Environment (defaults in brackets):
#   DATABASE_URL  [postgres://postgres@127.0.0.1:5432/hello_world?sslmode=disable]
#   CONNS [512]  DURATION [5]  WARMUP [2]  RUNS [3]
#   SERVER_CPU, CLIENT_CPU, WRK_THREADS  [0, 1, 1]
#   OUT  results file stem [../results/pool-modes-<date>]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
: "${DATABASE_URL:=postgres://postgres@127.0.0.1:5432/hello_world?sslmode=disable}"
: "${CONNS:=512}"
: "${DURATION:=5}"
: "${WARMUP:=2}"
: "${RUNS:=3}"
: "${SERVER_CPU:=0}"
: "${CLIENT_CPU:=1}"
: "${DB_CPU=$CLIENT_CPU}"
: "${WRK_THREADS:=1}"
date=$(date -u +%F)
: "${OUT:=$here/../results/pool-modes-$date}"
export DATABASE_URL

bin=$(mktemp -d)
rawdir=$bin/raw
mkdir -p "$rawdir"
pids=()
# shellcheck source=lib.sh
. "$here/lib.sh"
trap 'stop_servers; unpin_database; rm -rf "$bin"' EXIT

procs=$(taskset -c "$SERVER_CPU" nproc)
modes=(default ping "pool-1x" "pool-2x" "pool-4x" per-worker)
declare -A env_of=(
	[default]="PLINTH_DATABASE_MAX_CONNS="
	[ping]="PLINTH_DATABASE_PING_ON_CHECKOUT=true"
	[pool-1x]="PLINTH_DATABASE_MAX_CONNS=$procs"
	[pool-2x]="PLINTH_DATABASE_MAX_CONNS=$((2 * procs))"
	[pool-4x]="PLINTH_DATABASE_MAX_CONNS=$((4 * procs))"
	[per-worker]="TFB_POOL_MODE=per-worker"
)

echo "== build"
build_all
echo "== database"
"$here/setup-db.sh" "$DATABASE_URL"
pin_database

echo "== servers (GOMAXPROCS $procs)"
declare -A port
p=18180
for m in "${modes[@]}"; do
	p=$((p + 1))
	port[$m]=$p
	start_server plinth "$p" ${env_of[$m]}
	echo "$m (${env_of[$m]}) on 127.0.0.1:$p"
done

raw=$bin/raw.tsv
: >"$raw"
n=${#modes[@]}
for round in $(seq 1 "$RUNS"); do
	order=()
	for i in $(seq 0 $((n - 1))); do
		order+=("${modes[$(((i + round - 1) % n))]}")
	done
	echo "-- round $round: ${order[*]}"
	for t in "db -" "queries 20"; do
		read -r test param <<<"$t"
		label="c=$CONNS"
		[ "$test" = queries ] && label="q=20,c=$CONNS"
		for m in "${order[@]}"; do
			url=$(url_of "$test" "$param" "${port[$m]}")
			if [ "$round" = 1 ] && [ "$WARMUP" != 0 ]; then
				run_wrk "$rawdir/warmup.txt" "$WARMUP" "$CONNS" "$url" "$(accept_of "$test")"
			fi
			out="$rawdir/$test-$m-$round.txt"
			run_wrk "$out" "$DURATION" "$CONNS" "$url" "$(accept_of "$test")"
			read -r rps p99 errs < <(parse_wrk "$out")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$test" "$label" "$m" "$round" "$rps" "$p99" "$errs" >>"$raw"
			printf '%-8s %-12s %-11s %12s req/s  p99 %8s ms  errors %s\n' "$test" "$label" "$m" "$rps" "$p99" "$errs"
		done
	done
done
stop_servers

notes=$bin/notes.md
{
	echo "Command: \`cd bench/tfb && RUNS=$RUNS DURATION=$DURATION WARMUP=$WARMUP CONNS=$CONNS ./run-pool-modes.sh\` ($(date -u '+%F %H:%M UTC'))."
	echo
	echo "Plinth's TFB server (cmd/tfb-server) in each pool mode, ${DURATION} s per run, median of $RUNS, order rotated each round, ${WARMUP} s warm-up per mode and test in the first round. GOMAXPROCS is $procs (the server is pinned to one CPU), so:"
	echo
	for m in "${modes[@]}"; do
		case $m in
		default) d="data.Open's default pool, max(4, 4*GOMAXPROCS) = $((4 * procs > 4 ? 4 * procs : 4)) connections" ;;
		ping) d="the default pool with a ping on every checkout" ;;
		per-worker) d="$procs worker goroutine(s), each owning one pgx.Conn, fed over a channel" ;;
		*) d="pool of ${env_of[$m]#*=} connection(s)" ;;
		esac
		echo "- \`$m\` (\`${env_of[$m]}\`): $d"
	done
	echo
	machine_notes
} >"$notes"
mkdir -p "$(dirname "$OUT")"
"$bin/tfb-report" -in "$raw" -columns "$(
	IFS=,
	echo "${modes[*]}"
)" -base default -title "Plinth TFB server: pool modes ($date)" -notes "$notes" -md "$OUT.md"
echo "== wrote $OUT.md"
cat "$OUT.md"
