#!/usr/bin/env bash
# Build time, vet time, binary size and module counts of Plinth's `minimal`
# and `api` apps (written by `plinth new` at run time) against the same apps
# on net/http alone, chi, gin, echo, huma and fiber (bench/compile/apps/);
# bench/cmd/compile-bench says what is measured and how.
#
# Usage: bench/compile/run.sh [compile-bench flags]
#   RUNS  runs per app, the median is reported (default 3)
#   APPS  a subset, e.g. APPS="std-minimal plinth-minimal" (then the figures
#         go to standard output unless OUT is set)
#   OUT   the results file (default results/compile-<date>.md for all apps
#         and 3 or more runs)
#   KEEP=1  keep the work directory (the apps and their binaries), to study
#         the binaries after: `go tool nm -size -sort size BIN`
#
# Every app is built, started and probed over HTTP first (-no-smoke skips
# it). The whole set, 14 apps x 3 runs of cold builds, takes about an
# hour on 2 cores: run it alone, e.g.
#   nohup bench/compile/run.sh > /tmp/compile-bench.log 2>&1 &
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
cmd="bench/compile/run.sh"
[ "$runs" != 3 ] && cmd="RUNS=$runs $cmd"
[ -n "${APPS:-}" ] && cmd="APPS=\"$APPS\" $cmd"
[ $# -gt 0 ] && cmd="$cmd $*"
export COMPILE_BENCH_COMMAND="$cmd"
args=(-runs "$runs")
[ -n "${APPS:-}" ] && args+=(-apps "$APPS")
[ -n "${OUT:-}" ] && args+=(-o "$OUT")
[ "${KEEP:-}" = 1 ] && args+=(-keep)
mkdir -p bin
go build -o bin/compile-bench ./cmd/compile-bench
exec bin/compile-bench "${args[@]}" "$@"
