#!/usr/bin/env bash
# The router's instruction gate, run by instr-gate.sh (so by .ci/run):
# instructions per lookup pass of plinth.Bare() against gin in one
# in-process harness (cmd/router-gate: every route of a table served once per
# pass through ServeHTTP, httptest requests, callgrind counts of the passes
# alone). It fails when Plinth's count exceeds gin's times -max-ratio (0.95;
# cmd/router-gate says why below 1) on a gated table: the GitHub API table,
# all its routes (github-all) and its static routes alone (static-all). The
# other tables of testdata/routes are printed for information. About 10 s.
#
# Usage (from anywhere): bench/router-gate.sh [-max-ratio 0.95] [-n 20]
set -euo pipefail
cd "$(dirname "$0")"
command -v valgrind >/dev/null || { echo "router-gate: valgrind is needed (Debian: apt-get install valgrind)" >&2; exit 1; }
mkdir -p bin
go build -o bin/ ./cmd/router-gate
r=../testdata/routes
exec bin/router-gate "$@" -inform "$r/parse-api.txt,$r/gplus-api.txt,$r/deep-api.txt" "$r/github-api.txt"
