# lib.sh: shell functions shared by run.sh and run-pool-modes.sh (sourced).
#
# Expects: $here (bench/tfb), $bin (built binaries), $DATABASE_URL,
# $SERVER_CPU, $CLIENT_CPU, $WRK_THREADS, $rawdir (wrk outputs).

# build_all builds the Plinth server, the peers and tfb-report into $bin.
build_all() {
	(cd "$here" && go build -o "$bin/" ./cmd/tfb-server ./cmd/tfb-report &&
		go build -o "$bin/go-std" ./peers/go-std &&
		go build -o "$bin/fiber" ./peers/fiber &&
		go build -o "$bin/gin" ./peers/gin)
}

# binary_of IMPL prints the binary of an implementation name.
binary_of() {
	case $1 in
	plinth | plinth-fast) echo "$bin/tfb-server" ;;
	go-std | fiber | gin) echo "$bin/$1" ;;
	*) echo "unknown implementation $1" >&2; return 1 ;;
	esac
}

# start_server NAME PORT [VAR=VALUE...]: starts NAME pinned to $SERVER_CPU,
# waits until it answers, and records its pid in $pids.
start_server() {
	local name=$1 port=$2
	shift 2
	local b
	b=$(binary_of "$name") || return 1
	# plinth-fast is the same server on Plinth's own engine (PLINTH_ENGINE=fast).
	[ "$name" = plinth-fast ] && set -- "$@" PLINTH_ENGINE=fast
	env "$@" PLINTH_ADDR="127.0.0.1:$port" DATABASE_URL="$DATABASE_URL" \
		taskset -c "$SERVER_CPU" "$b" >"$rawdir/server-$name-$port.log" 2>&1 &
	local pid=$!
	pids+=("$pid")
	for _ in $(seq 1 100); do
		if curl -fs -o /dev/null "http://127.0.0.1:$port/plaintext"; then
			return 0
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "$name did not start:" >&2
			cat "$rawdir/server-$name-$port.log" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "$name did not answer on port $port" >&2
	return 1
}

# stop_servers stops the servers this script started, by pid.
stop_servers() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	pids=()
}

# url_of TEST LEVEL PORT prints the URL that TEST at LEVEL loads.
url_of() {
	local base="http://127.0.0.1:$3"
	case $1 in
	json) echo "$base/json" ;;
	db) echo "$base/db" ;;
	fortunes) echo "$base/fortunes" ;;
	plaintext) echo "$base/plaintext" ;;
	queries) echo "$base/queries?queries=$2" ;;
	updates) echo "$base/updates?queries=$2" ;;
	cached-queries) echo "$base/cached-queries?count=$2" ;;
	*) echo "unknown test $1" >&2; return 1 ;;
	esac
}

# accept_of TEST prints TFB's Accept header for TEST.
accept_of() {
	case $1 in
	plaintext) echo 'text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7' ;;
	fortunes) echo 'application/xhtml+xml,application/xml,text/html;q=0.9,text/plain;q=0.8,*/*;q=0.7' ;;
	*) echo 'application/json,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7' ;;
	esac
}

# run_wrk OUT SECONDS CONNS URL ACCEPT [PIPELINE_DEPTH]: runs wrk pinned to
# $CLIENT_CPU and writes its output to OUT.
run_wrk() {
	local out=$1 secs=$2 conns=$3 url=$4 accept=$5 depth=${6:-}
	local script=()
	if [ -n "$depth" ]; then
		script=(-s "$here/wrk/pipeline.lua")
	fi
	taskset -c "$CLIENT_CPU" wrk --latency --timeout 8 -d "${secs}s" -c "$conns" -t "$WRK_THREADS" \
		-H 'Connection: keep-alive' -H "Accept: $accept" "${script[@]}" "$url" ${depth:+-- "$depth"} >"$out" 2>&1 || true
}

# parse_wrk OUT prints "req/s p99-ms errors" from a wrk output.
parse_wrk() {
	awk '
	function ms(v) {
		if (v ~ /us$/) { sub(/us$/, "", v); return v / 1000 }
		if (v ~ /ms$/) { sub(/ms$/, "", v); return v + 0 }
		if (v ~ /s$/) { sub(/s$/, "", v); return v * 1000 }
		return v + 0
	}
	/Requests\/sec:/ { rps = $2 }
	/^ +99%/ { p99 = ms($2) }
	/Non-2xx or 3xx responses:/ { errs += $NF }
	/Socket errors:/ { gsub(/,/, ""); errs += $4 + $6 + $8 + $10 }
	END { printf "%s %s %d\n", (rps == "" ? 0 : rps), (p99 == "" ? 0 : p99), errs }
	' "$1"
}

# machine_notes prints the machine lines of a results file.
machine_notes() {
	echo "- machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(uname -sr), $(go version | cut -d' ' -f3)"
	echo "- PostgreSQL: $(psql -X -Atc 'SHOW server_version' "$DATABASE_URL" 2>/dev/null || echo '?'), max_connections $(psql -X -Atc 'SHOW max_connections' "$DATABASE_URL" 2>/dev/null || echo '?'), synchronous_commit $(psql -X -Atc 'SHOW synchronous_commit' "$DATABASE_URL" 2>/dev/null || echo '?'), pinned to CPU ${DB_CPU:-(none: unpinned)}"
	echo "- server pinned to CPU $SERVER_CPU (GOMAXPROCS $(taskset -c "$SERVER_CPU" nproc)), wrk $(wrk -v 2>&1 | head -1 | cut -d' ' -f2) pinned to CPU $CLIENT_CPU with $WRK_THREADS thread(s), \`--latency --timeout 8\`, \`Connection: keep-alive\`"
	echo "- commit: $(cd "$here" && git rev-parse --short HEAD 2>/dev/null || echo '?')$(cd "$here" && [ -n "$(git status --porcelain 2>/dev/null | head -1)" ] && echo '-dirty')"
}

# pin_database pins the local PostgreSQL server's processes (the postmaster,
# whose later children inherit it, and its current backends) to $DB_CPU, so
# that the database does not take the server's CPU: on one machine, the
# stand-in for TFB's separate database host. A database on another host, or
# processes this user cannot change, are left alone with a note. "" skips.
# unpin_database gives them every CPU back.
pin_database() {
	[ -n "${DB_CPU:-}" ] || return 0
	local pids
	pids=$(pgrep -x postgres || true)
	if [ -z "$pids" ]; then
		echo "note: no local postgres process to pin to CPU $DB_CPU" >&2
		return 0
	fi
	for p in $pids; do taskset -apc "$DB_CPU" "$p" >/dev/null 2>&1 || true; done
	echo "PostgreSQL's processes pinned to CPU $DB_CPU" >&2
}

unpin_database() {
	[ -n "${DB_CPU:-}" ] || return 0
	local all
	all="0-$(($(nproc) - 1))"
	for p in $(pgrep -x postgres || true); do taskset -apc "$all" "$p" >/dev/null 2>&1 || true; done
}

# cpu_ticks PID prints the user+system CPU time of PID in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# cpu_per_request T0 T1 RPS SECONDS prints the server's CPU microseconds per
# request over a run (ticks T0 to T1, RPS requests per second for SECONDS):
# the figure least moved by a noisy machine, whose other tenants take CPU
# time away from the server but do not add to its own.
cpu_per_request() {
	awk -v t0="$1" -v t1="$2" -v rps="$3" -v s="$4" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { n = rps * s; if (n <= 0) { print 0 } else { printf "%.1f", (t1 - t0) * 1e6 / hz / n } }'
}
