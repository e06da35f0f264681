#!/usr/bin/env bash
# profile.sh [SCENARIO]: a CPU profile of examples/web under wrk, as run.sh
# loads it (server on $SERVER_CPUS, wrk on $WRK_CPUS, 64 connections,
# $DURATION, under flock /tmp/plinth-wallclock.lock). examples/web is built
# with net/http/pprof added by `go build -overlay` (the repository is not
# changed); prints pprof's top $TOP functions (cumulative and flat) and
# keeps the profile in $OUT/SCENARIO.pprof.
#
#	bench/laravel/profile.sh home-anon     # hello, home-anon, home-signed, account
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
SC=${1:-home-anon}
DURATION=${DURATION:-10}
TOP=${TOP:-30}
SERVER_CPUS=${SERVER_CPUS:-0}
WRK_CPUS=${WRK_CPUS:-1}
OUT=${OUT:-/tmp/plinth-bench-laravel-profile}
mkdir -p "$OUT"
cat >"$OUT/pprof_overlay.go" <<'GO'
package main

import (
	"net/http"
	_ "net/http/pprof"
)

func init() {
	go func() { _ = http.ListenAndServe("127.0.0.1:16061", nil) }()
}
GO
printf '{"Replace":{"%s/examples/web/zz_pprof_overlay.go":"%s/pprof_overlay.go"}}\n' "$root" "$OUT" >"$OUT/overlay.json"
(cd "$root/examples/web" && go build -overlay "$OUT/overlay.json" -o "$OUT/web-pprof" .)
PLINTH_ADDR=127.0.0.1:18086 setsid taskset -c "$SERVER_CPUS" "$OUT/web-pprof" >"$OUT/web.log" 2>&1 </dev/null &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -fso /dev/null http://127.0.0.1:18086/hello && break; sleep 0.1; done
base=http://127.0.0.1:18086
env=(X=)
case $SC in
hello) path=/hello ;;
home-anon) path=/ ;;
home-signed | account)
	python3 "$here/wrk/tokens.py" "$base/" 1 login >"$OUT/signed"
	env=(WRK_COOKIES="$OUT/signed")
	path=/; [ "$SC" = account ] && path=/account ;;
*) echo "profile.sh: unknown scenario $SC" >&2; exit 2 ;;
esac
exec {fd}>>/tmp/plinth-wallclock.lock
flock "$fd"
env "${env[@]}" taskset -c "$WRK_CPUS" wrk -t1 -c64 -d"$((DURATION + 2))s" -s "$here/wrk/site.lua" "$base$path" >"$OUT/$SC.wrk" &
wrkpid=$!
sleep 1
curl -fsS -o "$OUT/$SC.pprof" "http://127.0.0.1:16061/debug/pprof/profile?seconds=$DURATION"
wait "$wrkpid"
flock -u "$fd"
grep RESULT "$OUT/$SC.wrk"
go tool pprof -top -cum -nodecount="$TOP" "$OUT/web-pprof" "$OUT/$SC.pprof" 2>/dev/null
go tool pprof -top -nodecount="$TOP" "$OUT/web-pprof" "$OUT/$SC.pprof" 2>/dev/null
