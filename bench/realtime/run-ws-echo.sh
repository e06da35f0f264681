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
# Per library and size: the median over the rounds; and Plinth's throughput over coder's (the library
# underneath) in each round, whose median is the figure to read (the rounds alternate, so both saw the same load).
echo "summary of $rounds rounds:"
awk '/^round=/ {
  split($1, r, "="); split($2, l, "="); split($4, z, "="); split($5, m, "="); split($6, a, "=")
  k = z[2] " " l[2]; v[k] = v[k] " " m[2]; al[k] = a[2]; t[r[2] " " k] = m[2]; rounds[r[2]] = 1; sizes[z[2]] = 1
}
function median(str,   x, n, i, j, tmp) {
  n = split(str, x, " ")
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] + 0 < x[i] + 0) { tmp = x[i]; x[i] = x[j]; x[j] = tmp }
  return x[int((n + 1) / 2)]
}
END {
  for (k in v) printf "size=%s lib=%s median_msgs_per_s=%d allocs_per_msg=%s\n", substr(k, 1, index(k, " ") - 1), substr(k, index(k, " ") + 1), median(v[k]), al[k]
  for (sz in sizes) {
    rs = ""
    for (rd in rounds) if (t[rd " " sz " coder"] > 0) rs = rs " " sprintf("%.3f", t[rd " " sz " plinth"] / t[rd " " sz " coder"])
    printf "size=%s plinth/coder per-round ratios:%s; median %.2f\n", sz, rs, median(rs)
  }
}' "$out" | sort
rm -f "$out"
