#!/usr/bin/env bash
# Single-connection latency over real HTTP: run-http.sh with one connection,
# so that nothing queues and the percentiles are the work of one request
# plus the loopback round trip. Compare with run-http.sh's percentiles under
# 64 connections to tell queueing from work.
#
# Usage: ./run-latency.sh [runs] [secs] [server cpus] [client cpus]
#   defaults: 3 runs, 5 s, server on CPU 0, client on CPU 1
#   FRAMEWORKS (default "plinth-new plinth std-limits std") and
#   SCENARIOS (default "minimal json middleware") as in run-http.sh.
# Writes results/latency-<date>.json and .md (with p95 and p99.9 columns).
set -euo pipefail
cd "$(dirname "$0")"
FRAMEWORKS=${FRAMEWORKS:-plinth-new plinth std-limits std} \
	SCENARIOS=${SCENARIOS:-minimal json middleware} \
	KIND=latency exec ./run-http.sh "${1:-3}" "${2:-5}" 1 "${3:-0}" "${4:-1}"
