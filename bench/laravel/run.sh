#!/usr/bin/env bash
# run.sh: the whole site (examples/web's measured routes) on Plinth, on gin
# (bench/websites/gin), on Laravel 8 behind PHP-FPM and nginx
# (bench/laravel/site), and on bare net/http (bench/websites/floor), side by
# side. As root, on Debian: installs what is missing with apt (php8.2-fpm,
# php8.2-cli, php-laravel-framework, nginx, wrk), builds the Go servers,
# starts every server pinned to $SERVER_CPUS, and loads each with wrk pinned
# to $WRK_CPUS, the servers in a different order each round, each wrk run
# under flock /tmp/plinth-wallclock.lock. Prints the medians over $ROUNDS
# rounds as a Markdown table into bench/results/laravel-DATE.md and
# BENCHMARKS.md (bench/cmd/report), and keeps every run in $OUT/raw.tsv.
#
#	sudo bench/laravel/run.sh
#	ROUNDS=3 DURATION=2s SCENARIOS="hello home-anon" bench/laravel/run.sh
#
# Scenarios: hello (GET /hello, plain text), home-anon (GET / without a
# cookie), home-signed and account (GET / and GET /account with the cookies
# of one sign-in made before the run), login (POST /login, each request a
# fresh visitor's cookie and CSRF token from a pool fetched before the run,
# the demo account's password: a 303 counts as success, anything else as a
# failure). Figures per cell: req/s, p50 and p99 latency, server CPU time per
# request (utime+stime of all the server's processes, /proc/PID/stat),
# resident memory after the run (VmRSS summed over the processes), failures
# (status >= 400, socket errors, login answers other than 303).
#
# Environment (defaults):
#	SERVERS="plinth plinth-fast gin laravel floor"  plinth-fast is examples/web
#	                         with PLINTH_ENGINE=fast, run only when the binary
#	                         accepts the variable (starts without warning)
#	SCENARIOS="hello home-anon home-signed account login"
#	ROUNDS=5 DURATION=4s     64-connection runs
#	CONNS=64 LAT_CONNS=1 LAT_DURATION=3s  the latency runs (1 connection; not
#	                         for login); LAT_CONNS="" skips them
#	LOGIN_CONNS=4            login's connections: Plinth's and the gin site's
#	                         throttle admit 5 attempts in flight per account
#	                         and client, and one CPU hashes one password at once
#	LOGIN_POOL=250           fresh visitors fetched per login run
#	SERVER_CPUS=0 WRK_CPUS=1 WRK_THREADS=1 LARAVEL_WORKERS=4
#	WRK_TIMEOUT=10s          an answer slower than this counts as a failure
#	OUT=/tmp/plinth-bench-laravel-results  NO_INSTALL=1 skips apt
#	LOCK_SCOPE=round         the wall-clock lock is held for a whole round
#	                         (about 2 minutes: all servers, all scenarios);
#	                         "cell": for each wrk run only
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
SERVERS=${SERVERS:-plinth plinth-fast gin laravel floor}
SCENARIOS=${SCENARIOS:-hello home-anon home-signed account login}
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-4s}
CONNS=${CONNS:-64}
LAT_CONNS=${LAT_CONNS-1}
LAT_DURATION=${LAT_DURATION:-3s}
LOGIN_CONNS=${LOGIN_CONNS:-4}
LOGIN_POOL=${LOGIN_POOL:-250}
SERVER_CPUS=${SERVER_CPUS:-0}
WRK_CPUS=${WRK_CPUS:-1}
WRK_THREADS=${WRK_THREADS:-1}
WRK_TIMEOUT=${WRK_TIMEOUT:-10s}
OUT=${OUT:-/tmp/plinth-bench-laravel-results}
LOCK_SCOPE=${LOCK_SCOPE:-round}
LOCK=/tmp/plinth-wallclock.lock
export SERVER_CPUS LARAVEL_WORKERS=${LARAVEL_WORKERS:-4}

declare -A PORT=([plinth]=18081 [plinth-fast]=18085 [gin]=18082 [laravel]=18083 [floor]=18084)
declare -A PID=()
mkdir -p "$OUT/bin" "$OUT/pools"

install() {
	[ -n "${NO_INSTALL:-}" ] && return
	local need=()
	command -v php-fpm8.2 >/dev/null || need+=(php8.2-fpm)
	command -v php >/dev/null || need+=(php8.2-cli)
	[ -f /usr/share/php/Illuminate/Foundation/Application.php ] || need+=(php-laravel-framework)
	command -v nginx >/dev/null || need+=(nginx)
	command -v wrk >/dev/null || need+=(wrk)
	if [ ${#need[@]} -gt 0 ]; then
		echo "run.sh: apt-get install ${need[*]}" >&2
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
	fi
}

build() {
	(cd "$root/examples/web" && go build -o "$OUT/bin/plinth" .)
	(cd "$root/bench/websites" && go build -o "$OUT/bin/gin" ./gin && go build -o "$OUT/bin/floor" ./floor)
}

wait_up() { # name
	for _ in $(seq 100); do
		curl -fso /dev/null "http://127.0.0.1:${PORT[$1]}/hello" && return 0
		sleep 0.1
	done
	return 1
}

start() { # name
	local s=$1 p=${PORT[$1]}
	case $s in
	plinth) PLINTH_ADDR=127.0.0.1:$p setsid taskset -c "$SERVER_CPUS" "$OUT/bin/plinth" >"$OUT/$s.log" 2>&1 </dev/null & PID[$s]=$! ;;
	plinth-fast) PLINTH_ENGINE=fast PLINTH_ADDR=127.0.0.1:$p setsid taskset -c "$SERVER_CPUS" "$OUT/bin/plinth" >"$OUT/$s.log" 2>&1 </dev/null & PID[$s]=$! ;;
	gin | floor) ADDR=127.0.0.1:$p setsid taskset -c "$SERVER_CPUS" "$OUT/bin/$s" >"$OUT/$s.log" 2>&1 </dev/null & PID[$s]=$! ;;
	laravel) LARAVEL_PORT=$p "$here/serve-laravel.sh" start ;;
	esac
	if ! wait_up "$s"; then
		echo "run.sh: $s did not answer on :$p" >&2
		return 1
	fi
	if [ "$s" = plinth-fast ]; then
		sleep 0.5
		if grep -q 'PLINTH_ENGINE' "$OUT/$s.log"; then
			echo "run.sh: this examples/web does not take PLINTH_ENGINE=fast; plinth-fast skipped" >&2
			stop_one "$s"
			return 1
		fi
	fi
}

stop_one() {
	local s=$1
	if [ "$s" = laravel ]; then
		"$here/serve-laravel.sh" stop || true
	elif [ -n "${PID[$s]:-}" ]; then
		kill "${PID[$s]}" 2>/dev/null || true
		wait "${PID[$s]}" 2>/dev/null || true
	fi
	unset "PID[$s]"
}

stop_all() {
	for s in "${!PID[@]}"; do stop_one "$s"; done
	[[ " $RUNNING " == *" laravel "* ]] && "$here/serve-laravel.sh" stop || true
}

pids_of() { # name: the server's processes
	if [ "$1" = laravel ]; then
		"$here/serve-laravel.sh" pids
	else
		echo "${PID[$1]}"
	fi
}

cpu_ticks() { # pids...: utime+stime summed
	local t=0 f
	for p in "$@"; do
		[ -r "/proc/$p/stat" ] || continue
		# fields after the ")" of comm: utime and stime are the 12th and 13th
		f=$(sed 's/^.*) //' "/proc/$p/stat")
		set -- $f
		t=$((t + ${12} + ${13}))
	done
	echo "$t"
}

rss_kb() {
	local t=0 v
	for p in "$@"; do
		v=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
		t=$((t + ${v:-0}))
	done
	echo "$t"
}

path_of() {
	case $1 in
	hello) echo /hello ;; home-anon | home-signed) echo / ;; account) echo /account ;; login) echo / ;;
	esac
}

# signin NAME: the cookies of one sign-in, for the signed-in scenarios.
signin() {
	local field=csrf_token
	[ "$1" = laravel ] && field=_token
	CSRF_FIELD=$field python3 "$here/wrk/tokens.py" "http://127.0.0.1:${PORT[$1]}/" 1 login >"$OUT/pools/$1.signed"
}

# cell NAME SCENARIO CONNS DURATION ROUND
cell() {
	local s=$1 sc=$2 c=$3 d=$4 round=$5 url env=(X=) field=csrf_token
	url="http://127.0.0.1:${PORT[$s]}$(path_of "$sc")"
	[ "$s" = laravel ] && field=_token
	case $sc in
	home-signed | account)
		[ "$s" = floor ] || { signin "$s" && env=(WRK_COOKIES="$OUT/pools/$s.signed"); } ;;
	login)
		url="http://127.0.0.1:${PORT[$s]}/"
		if [ "$s" = floor ]; then
			printf 'x=1\tt\n' >"$OUT/pools/floor.login"
		else
			CSRF_FIELD=$field python3 "$here/wrk/tokens.py" "$url" "$LOGIN_POOL" >"$OUT/pools/$s.login"
		fi
		env=(WRK_LOGIN="$OUT/pools/$s.login" WRK_CSRF_FIELD=$field) ;;
	esac
	local pids out t0 t1 line lockfd
	pids=$(pids_of "$s" | tr '\n' ' ')
	# The measurement holds the machine's wall-clock lock (flock(1) on a
	# descriptor: the same lock as flock /tmp/plinth-wallclock.lock CMD),
	# for this run or for the whole round (LOCK_SCOPE).
	if [ "$LOCK_SCOPE" = cell ]; then
		exec {lockfd}>>"$LOCK"
		flock "$lockfd"
	fi
	# shellcheck disable=SC2086
	t0=$(cpu_ticks $pids)
	out=$(env "${env[@]}" WRK_THREADS="$WRK_THREADS" taskset -c "$WRK_CPUS" \
		wrk -t"$WRK_THREADS" -c"$c" -d"$d" --timeout "$WRK_TIMEOUT" -s "$here/wrk/site.lua" "$url" 2>&1 || true)
	# shellcheck disable=SC2086
	t1=$(cpu_ticks $pids)
	if [ "$LOCK_SCOPE" = cell ]; then
		flock -u "$lockfd"
		exec {lockfd}>&-
	fi
	line=$(grep '^RESULT' <<<"$out" || true)
	if [ -z "$line" ]; then
		echo "run.sh: wrk gave no result for $s $sc c=$c" >&2
		echo "$out" >&2
		return
	fi
	# shellcheck disable=SC2086
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$s" "$sc" "$c" "$line" "$((t1 - t0))" "$(rss_kb $pids)" >>"$OUT/raw.tsv"
}

install
build
trap stop_all EXIT
RUNNING=""
for s in $SERVERS; do
	if start "$s"; then RUNNING="$RUNNING $s"; fi
done
read -r -a servers <<<"$RUNNING"
echo "run.sh: servers: ${servers[*]}; scenarios: $SCENARIOS; $ROUNDS rounds" >&2
: >"$OUT/raw.tsv"
n=${#servers[@]}
for round in $(seq "$ROUNDS"); do
	if [ "$LOCK_SCOPE" = round ]; then
		exec {roundfd}>>"$LOCK"
		flock "$roundfd"
	fi
	for sc in $SCENARIOS; do
		conns="$CONNS"
		[ "$sc" = login ] && conns=$LOGIN_CONNS
		for c in $conns $([ "$sc" = login ] || echo "$LAT_CONNS"); do
			d=$DURATION
			[ "$c" = "$LAT_CONNS" ] && [ "$sc" != login ] && d=$LAT_DURATION
			for i in $(seq 0 $((n - 1))); do
				s=${servers[$(((i + round) % n))]} # a different order each round
				cell "$s" "$sc" "$c" "$d" "$round"
			done
		done
	done
	if [ "$LOCK_SCOPE" = round ]; then
		flock -u "$roundfd"
		exec {roundfd}>&-
	fi
	echo "run.sh: round $round done $(date -u +%T)" >&2
done
# The report: bench/results/laravel-DATE.md (RESULTS=dir elsewhere,
# RESULTS="" only $OUT/summary.md), then BENCHMARKS.md from it.
RESULTS=${RESULTS-$root/bench/results}
RUN_DATE="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	RUN_COMMAND="${RUN_COMMAND:-$(for v in ROUNDS DURATION LAT_DURATION LOGIN_CONNS SERVERS SCENARIOS; do printf '%s=%q ' "$v" "${!v}"; done)bench/laravel/run.sh}" \
	MACHINE="$(nproc) CPUs ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), Linux $(uname -r), $(go env GOVERSION), $(php -r 'echo "PHP ", PHP_VERSION;'), $(nginx -v 2>&1 | sed 's#.*/#nginx #')" \
	ROUNDS=$ROUNDS DURATION=$DURATION LAT_DURATION=$LAT_DURATION CONNS=$CONNS LAT_CONNS=$LAT_CONNS LOGIN_CONNS=$LOGIN_CONNS \
	WRK_THREADS=$WRK_THREADS WRK_CPUS=$WRK_CPUS \
	python3 "$here/summary.py" "$OUT/raw.tsv" | tee "$OUT/summary.md"
if [ -n "$RESULTS" ]; then
	cp "$OUT/summary.md" "$RESULTS/laravel-$(date -u +%F).md"
	(cd "$root/bench" && go run ./cmd/report >/dev/null) # it writes BENCHMARKS.md
	echo "run.sh: wrote $RESULTS/laravel-$(date -u +%F).md and BENCHMARKS.md" >&2
fi
