#!/usr/bin/env bash
# Memory per idle WebSocket: each library's echo server in its own process,
# N connections (default 10,000) held by a client in another process; RSS and
# Go heap+stack after GC, per connection. Usage: bench/realtime/run-ws-idle.sh [N] [libs...]
set -euo pipefail
cd "$(dirname "$0")"
n=${1:-10000}; shift || true
libs=${*:-plinth coder gorilla gws}
bin=$(mktemp -d)/wsidle
go build -o "$bin" ./cmd/wsidle
ulimit -n "$(ulimit -Hn)"
port=19300
echo "go $(go env GOVERSION), $(nproc) cores, $(uname -sr); conns=$n"
for lib in $libs; do
  port=$((port + 1))
  "$bin" -serve "$lib" -addr "127.0.0.1:$port" 2>/dev/null &
  pid=$!
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
  printf '%-8s ' "$lib"
  "$bin" -dial "127.0.0.1:$port" -n "$n"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
