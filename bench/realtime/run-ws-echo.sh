#!/usr/bin/env bash
# Echo over loopback, pinned: the server on CPU 0, the client (50 connections
# in lock-step) on CPU 1, every library in alternating rounds, under the
# wall-clock lock. Compare the ratios within one run, not absolute figures
# across runs. Usage: bench/realtime/run-ws-echo.sh [rounds] [seconds]
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-3}; secs=${2:-4}
bin=$(mktemp -d)/wsidle
go build -o "$bin" ./cmd/wsidle
echo "go $(go env GOVERSION), $(nproc) cores; server taskset -c 0, client taskset -c 1; 50 conns lock-step; ${secs}s per cell"
run() {
  port=19400
  for round in $(seq 1 "$rounds"); do
    for size in 64 1024; do
      for lib in plinth coder gorilla gws; do
        port=$((port + 1))
        taskset -c 0 "$bin" -serve "$lib" -addr "127.0.0.1:$port" 2>/dev/null &
        pid=$!
        for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
        printf 'round=%d lib=%-7s ' "$round" "$lib"
        taskset -c 1 "$bin" -dial "127.0.0.1:$port" -echo 50 -size "$size" -d "${secs}s"
        kill "$pid"; wait "$pid" 2>/dev/null || true
      done
    done
  done
}
export -f run
export bin rounds secs
out=$(mktemp)
flock /tmp/plinth-wallclock.lock bash -c run | tee "$out"
# Median over the rounds per library and size, and Plinth's ratio to coder (the library underneath).
echo "median of $rounds rounds:"
sed -E 's/round=[0-9]+ lib=([a-z]+) +conns=50 size=([0-9]+) msgs_per_s=([0-9]+) allocs_per_msg=([0-9.]+)/\2 \1 \3 \4/' "$out" |
  grep -E '^[0-9]+ ' | sort -k1,1n -k2,2 -k3,3n |
  awk '{k=$1" "$2; v[k]=v[k]" "$3; a[k]=$4} END {for (k in v) {n=split(v[k], x, " "); print k, x[int((n+1)/2)], a[k]}}' |
  sort -k1,1n -k2,2 | awk '{m[$1" "$2]=$3; print "size=" $1, "lib=" $2, "msgs_per_s=" $3, "allocs_per_msg=" $4}
    END {for (s in m) if (s ~ / plinth$/) {split(s, p, " "); printf "size=%s plinth/coder throughput ratio %.2f\n", p[1], m[s]/m[p[1]" coder"]}}'
rm -f "$out"
