#!/usr/bin/env bash
# The strict outside client (Debian's python3-websockets under /usr/bin/python3)
# against examples/realtime: the echo contract, then 200 idle connections held
# through a SIGTERM, each closed with 1001, and exit 0. Skips, saying so, when
# python3-websockets is missing (apt-get install -y python3-websockets).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c 'import websockets' 2>/dev/null; then
  echo "SKIPPED: python3-websockets is not installed (apt-get install -y python3-websockets)"
  exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/realtime" .
port=$((19500 + RANDOM % 400))
PLINTH_ADDR="127.0.0.1:$port" PLINTH_DRAIN_DELAY=200ms PLINTH_SHUTDOWN_TIMEOUT=5s "$dir/realtime" >"$dir/log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
/usr/bin/python3 outside/check.py "127.0.0.1:$port"
/usr/bin/python3 outside/check.py "127.0.0.1:$port" hold 200 >"$dir/holder" 2>&1 &
holder=$!
for _ in $(seq 1 300); do grep -q '^held$' "$dir/holder" && break; kill -0 "$holder" 2>/dev/null || break; sleep 0.1; done
grep -q '^held$' "$dir/holder" || { echo "FAILED: the holder did not hold its connections:" >&2; cat "$dir/holder" >&2; kill "$pid"; exit 1; }
start=$(date +%s%N)
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
hrc=0; wait "$holder" || hrc=$?
grep -v '^held$' "$dir/holder" || true
[ "$hrc" -eq 0 ] || { echo "FAILED: the outside client's check after SIGTERM (above)" >&2; exit 1; }
[ "$rc" -eq 0 ] || { echo "FAILED: the example exited $rc after SIGTERM" >&2; cat "$dir/log" >&2; exit 1; }
[ "$took_ms" -le 5200 ] || { echo "FAILED: exit ${took_ms} ms after SIGTERM, over drain delay + grace (5200 ms)" >&2; exit 1; }
echo "ok: exit 0, ${took_ms} ms after SIGTERM (drain delay 200 ms + grace 5 s)"
