#!/usr/bin/env bash
# Server instructions per echoed message (callgrind; no wall-clock lock needed, stable on a shared machine):
# each library's echo server under valgrind, a client (10 connections, lock-step) sending N1 then N2 messages per
# connection in two runs; (I(N2) - I(N1)) / (10 * (N2 - N1)) removes start-up and handshakes.
# Usage: bench/realtime/run-ws-instr.sh [N1] [N2] [libs...]
set -euo pipefail
cd "$(dirname "$0")"
n1=${1:-50}; n2=${2:-250}; shift 2 || true
libs=${*:-plinth coder gorilla gws}
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/wsidle" ./cmd/wsidle
port=19600
count() { # lib size msgs-per-conn -> server instructions
  port=$((port + 1))
  local out=$tmp/cg.$1.$2.$3
  GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$tmp/wsidle" -serve "$1" -addr "127.0.0.1:$port" >/dev/null 2>"$out.log" &
  local pid=$!
  for _ in $(seq 1 600); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  "$tmp/wsidle" -dial "127.0.0.1:$port" -echo 10 -size "$2" -count "$3"
  curl -s -o /dev/null "http://127.0.0.1:$port/stats?quit" || true; wait "$pid" || true
  grep -m1 "^summary:" "$out" | awk "{print \$2}" || { cat "$out.log" >&2; exit 1; }
}
echo "go $(go env GOVERSION); callgrind; 10 connections lock-step; messages per connection $n1 and $n2"
for size in 64 1024; do
  for lib in $libs; do
    a=$(count "$lib" "$size" "$n1"); b=$(count "$lib" "$size" "$n2")
    echo "size=$size lib=$lib instructions_per_msg=$(( (b - a) / (10 * (n2 - n1)) ))"
  done
done
