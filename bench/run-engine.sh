#!/usr/bin/env bash
# Plinth's own HTTP/1.1 engine (Config.Engine
# "fast", PLINTH_ENGINE=fast) against bare net/http and fasthttp's native
# handler, printed as ratios checked against the targets below.
#
# Usage: bench/run-engine.sh [instr|wall|all]     (default all)
#
# instr: instructions per request of the server process over real HTTP,
#   callgrind, measured as the instruction gate measures (instr-gate.sh
#   -measure: GOGC=off, one keep-alive connection, paced requests, exact
#   windows), every framework in the same run, scenario minimal:
#     plinth-fast      plinth.Bare() on the engine
#     plinth-new-fast  plinth.New() on the engine
#     fasthttp         fasthttp's native server and handler
#     std              bare net/http (ServeMux on the zero-value http.Server)
#     plinth-new       plinth.New() on net/http
#   targets: plinth-fast <= 1.2x fasthttp; plinth-new-fast <= 0.35x std and
#   <= 0.25x plinth-new. Then the same five with the measured requests
#   pipelined, 16 in flight (-pipeline 16). No lock needed (counts, not time).
#
# wall: requests per second, cmd/bench-server pinned to CPU 0 and
#   cmd/loadgen (one epoll thread) pinned to CPU 1, under
#   flock /tmp/plinth-wallclock.lock; ROUNDS (5) rounds, in each round every
#   framework in turn (alternating, so that a change in the machine's load
#   falls on all of them), SECS (5) seconds each after a 1 s warm-up; the
#   median per framework and the ratios of medians:
#     pipelined x16 (-pipeline 16, PCONNS=32 connections): plinth-new-fast
#       >= 3x std and >= 0.8x fasthttp;
#     not pipelined (CONNS=64 connections): plinth-new-fast >= 1.1x std.
#   WALL_FRAMEWORKS (default "plinth-new-fast std fasthttp plinth-new").
#
# Writes results/engine-<date>.md (and prints it). Needs valgrind, taskset,
# flock (Debian: valgrind, util-linux). The machine of the committed
# figures has 2 cores shared with other work: compare the ratios of one run,
# never absolute figures across runs.
set -euo pipefail
cd "$(dirname "$0")"
what=${1:-all}
rounds=${ROUNDS:-5}
secs=${SECS:-5}
conns=${CONNS:-64}
pconns=${PCONNS:-32}
wall_fws=${WALL_FRAMEWORKS:-plinth-new-fast std fasthttp plinth-new}
mkdir -p results bin
md=results/engine-$(date -u +%F).md
# The commit, read before this run writes its results file (which would
# otherwise make every run look -dirty); results/ is left out of the check.
rev=${RUN_ENGINE_REV:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo none)$(git diff --quiet HEAD -- .. ':!results' 2>/dev/null || echo -dirty)}
export RUN_ENGINE_REV=$rev
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.2f", a / b }'; }
verdict() { # value op target
	awk -v v="$1" -v t="$3" -v op="$2" 'BEGIN { ok = (op == "<=") ? v <= t : v >= t; print ok ? "met" : "MISSED" }'
}

# "wall" alone adds its section to the day's file when there is one.
[ "$what" = wall-locked ] || { [ "$what" = wall ] && [ -s "$md" ]; } || {
	echo "# Plinth's engine"
	echo
	echo "Command: \`bench/run-engine.sh $what\`; commit $rev,"
	echo "$(go env GOVERSION), $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) CPUs, shared with other work)."
	echo
	echo "Caveat: a shared 2-core virtual machine, other work running; in the wall-clock part the server has one core and"
	echo "the load generator the other, so req/s is one server core against one client core, not a capacity. Read the"
	echo "ratios of one run (rounds alternate the frameworks); instruction counts repeat within a percent whatever the load."
	echo
} >"$md"

if [ "$what" = instr ] || [ "$what" = all ]; then
	command -v valgrind >/dev/null || { echo "run-engine: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
	go build -o bin/ ./cmd/instr ./cmd/instr-gate
	fws=plinth-fast,plinth-new-fast,fasthttp,std,plinth-new
	tab=$(bin/instr-gate -instr bin/instr -measure -frameworks "$fws" -scenarios minimal)
	echo "$tab" >&2
	declare -A in
	while read -r sc fw n; do
		[ "$sc" = minimal ] && in[$fw]=$n
	done <<<"$tab"
	r1=$(ratio "${in[plinth-fast]}" "${in[fasthttp]}")
	r2=$(ratio "${in[plinth-new-fast]}" "${in[std]}")
	r3=$(ratio "${in[plinth-new-fast]}" "${in[plinth-new]}")
	{
		echo "### Instructions per request (callgrind, minimal)"
		echo
		echo "As bench/instr-gate.sh -measure counts them (GOGC=off, 1000 paced requests on one keep-alive connection after"
		echo "5000 pipelined and 100 paced warm-up ones; the server process in user space), all five in one run."
		echo
		echo "| framework | instructions per request |"
		echo "|---|---:|"
		for fw in plinth-fast plinth-new-fast fasthttp std plinth-new; do
			echo "| $fw | ${in[$fw]} |"
		done
		echo
		echo "| ratio | measured | target | |"
		echo "|---|---:|---:|---|"
		echo "| plinth-fast / fasthttp | $r1 | <= 1.2 | $(verdict "$r1" "<=" 1.2) |"
		echo "| plinth-new-fast / std | $r2 | <= 0.35 | $(verdict "$r2" "<=" 0.35) |"
		echo "| plinth-new-fast / plinth-new | $r3 | <= 0.25 | $(verdict "$r3" "<=" 0.25) |"
		echo
	} >>"$md"
	# The same five with the measured requests pipelined (16 in flight):
	# what a request costs when the read and the write are shared, as in
	# the pipelined wall-clock figures.
	tab=$(bin/instr-gate -instr bin/instr -measure -pipeline 16 -n 4000 -frameworks "$fws" -scenarios minimal)
	echo "$tab" >&2
	declare -A pin
	while read -r sc fw n; do
		[ "$sc" = minimal ] && pin[$fw]=$n
	done <<<"$tab"
	{
		echo "Pipelined: the same, but 4000 measured requests sent pipelined, 16 in flight"
		echo "(\`bin/instr-gate -measure -pipeline 16 -n 4000\`): the per-request cost when reads and writes are shared."
		echo
		echo "| framework | instructions per request, pipelined | ratio to fasthttp | ratio to std |"
		echo "|---|---:|---:|---:|"
		for fw in plinth-fast plinth-new-fast fasthttp std plinth-new; do
			echo "| $fw | ${pin[$fw]} | $(ratio "${pin[$fw]}" "${pin[fasthttp]}") | $(ratio "${pin[$fw]}" "${pin[std]}") |"
		done
		echo
	} >>"$md"
fi

if [ "$what" = wall ] || [ "$what" = all ]; then
	if [ -z "${RUN_ENGINE_LOCKED:-}" ]; then
		# Hold the shared lock for the whole wall-clock part (the instr part
		# above needs none).
		RUN_ENGINE_LOCKED=1 exec flock /tmp/plinth-wallclock.lock "$0" wall-locked
	fi
fi
if [ "$what" = wall-locked ]; then
	md=results/engine-$(date -u +%F).md
	go build -o bin/ ./cmd/bench-server ./cmd/loadgen
	cpus=$(nproc)
	client_cpu=$((cpus > 1 ? 1 : 0))
	declare -A port pid
	logs=$(mktemp -d)
	p=$((19000 + RANDOM % 500))
	cleanup() {
		for f in "${!pid[@]}"; do kill "${pid[$f]}" 2>/dev/null || true; done
		rm -rf "$logs"
	}
	trap cleanup EXIT
	for fw in $wall_fws; do
		port[$fw]=$p
		p=$((p + 1))
		taskset -c 0 bin/bench-server -framework "$fw" -scenario minimal -addr "127.0.0.1:${port[$fw]}" 2>"$logs/$fw.log" &
		pid[$fw]=$!
	done
	for fw in $wall_fws; do
		for _ in $(seq 1 100); do
			curl -s -o /dev/null "http://127.0.0.1:${port[$fw]}/" && break
			sleep 0.1
		done
		curl -s -o /dev/null "http://127.0.0.1:${port[$fw]}/" || { cat "$logs/$fw.log" >&2; echo "run-engine: $fw did not start" >&2; exit 1; }
	done
	load() { # framework pipeline conns -> req/s
		taskset -c "$client_cpu" bin/loadgen -json -workers 1 -c "$3" -pipeline "$2" -d "${secs}s" -warmup 1s \
			-server-pid "${pid[$1]}" "http://127.0.0.1:${port[$1]}/" | jq -r '"\(.rps) \(.errors) \(.non_2xx)"'
	}
	median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
	declare -A runs
	for r in $(seq 1 "$rounds"); do
		for mode in pipelined plain; do
			for fw in $wall_fws; do
				if [ $mode = pipelined ]; then out=$(load "$fw" 16 "$pconns"); else out=$(load "$fw" 1 "$conns"); fi
				read -r rps errs non2xx <<<"$out"
				[ "$errs" = 0 ] && [ "$non2xx" = 0 ] || echo "run-engine: $fw $mode: $errs errors, $non2xx non-2xx" >&2
				runs[$mode.$fw]="${runs[$mode.$fw]:-} ${rps%.*}"
				echo "round $r $mode $fw: ${rps%.*} req/s" >&2
			done
		done
	done
	declare -A med
	for mode in pipelined plain; do
		for fw in $wall_fws; do
			# shellcheck disable=SC2086
			med[$mode.$fw]=$(median ${runs[$mode.$fw]})
		done
	done
	{
		echo "### Requests per second (wall clock, minimal)"
		echo
		echo "cmd/bench-server pinned to CPU 0, cmd/loadgen (-workers 1, epoll) pinned to CPU $client_cpu, under flock"
		echo "/tmp/plinth-wallclock.lock; $rounds alternating rounds of ${secs} s after a 1 s warm-up each; pipelined: -pipeline 16"
		echo "over $pconns connections; plain: $conns connections, one request at a time. Medians. Commit"
		echo "$rev, $(date -u '+%F %H:%M UTC')."
		echo
		echo "| framework | pipelined x16 req/s (runs) | median | plain req/s (runs) | median |"
		echo "|---|---|---:|---|---:|"
		for fw in $wall_fws; do
			echo "| $fw |${runs[pipelined.$fw]} | ${med[pipelined.$fw]} |${runs[plain.$fw]} | ${med[plain.$fw]} |"
		done
		echo
		echo "| ratio of medians | measured | target | |"
		echo "|---|---:|---:|---|"
		if [ -n "${med[pipelined.plinth-new-fast]:-}" ] && [ -n "${med[pipelined.std]:-}" ]; then
			a=$(ratio "${med[pipelined.plinth-new-fast]}" "${med[pipelined.std]}")
			echo "| pipelined: plinth-new-fast / std | $a | >= 3 | $(verdict "$a" ">=" 3) |"
			a=$(ratio "${med[plain.plinth-new-fast]}" "${med[plain.std]}")
			echo "| plain: plinth-new-fast / std | $a | >= 1.1 | $(verdict "$a" ">=" 1.1) |"
		fi
		if [ -n "${med[pipelined.plinth-new-fast]:-}" ] && [ -n "${med[pipelined.fasthttp]:-}" ]; then
			a=$(ratio "${med[pipelined.plinth-new-fast]}" "${med[pipelined.fasthttp]}")
			echo "| pipelined: plinth-new-fast / fasthttp | $a | >= 0.8 | $(verdict "$a" ">=" 0.8) |"
			a=$(ratio "${med[plain.plinth-new-fast]}" "${med[plain.fasthttp]}")
			echo "| plain: plinth-new-fast / fasthttp | $a | - | |"
		fi
		if [ -n "${med[pipelined.plinth-new]:-}" ] && [ -n "${med[pipelined.std]:-}" ]; then
			echo "| pipelined: plinth-new (net/http) / std | $(ratio "${med[pipelined.plinth-new]}" "${med[pipelined.std]}") | - | |"
		fi
		echo
	} >>"$md"
	cat "$md"
	exit 0
fi
cat "$md"
