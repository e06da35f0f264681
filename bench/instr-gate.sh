#!/usr/bin/env bash
# The instruction gate of .ci/run: instructions per request of the server
# process over real HTTP, counted by valgrind's callgrind, for plinth
# (plinth.Bare()) and plinth-new (plinth.New()) on minimal, json, routes-50,
# github-all (each of its 203 routes in turn), middleware, default-stack,
# validated-json (the typed api operation) and module-route (a controller of a module
# with a guard and an interceptor), against bench/instr-baseline.json; and
# Plinth's own engine (plinth-fast, plinth-new-fast) beside
# fasthttp's native server (fasthttp) on minimal, with the engine's
# ratios to fasthttp, both counts from the same run, gated as well.
# It fails when a pair or a ratio grows by more than the baseline's threshold (3 %),
# printing both counts, the ratio and the command below that updates the
# baseline; it reports improvements of more than 3 % too. Time is reported
# (compare.sh), never gated: on a shared machine it moves by tens of percent.
#
# Without arguments it first runs router-gate.sh: the router's instructions
# per lookup pass against gin's, in process (github-all and its static
# routes gated, other route tables printed; cmd/router-gate).
#
# Usage (from anywhere; about 30 s on the 2-core machine, the build aside,
# twice that when it fails: it measures again before failing):
#   bench/instr-gate.sh             # the gate
#   bench/instr-gate.sh -update     # rewrite bench/instr-baseline.json on purpose; commit it with the reason
#   bench/instr-gate.sh -measure -frameworks std -scenarios headers-0,headers-4,headers-10 [-md FILE]   # measure only
#   bench/instr-gate.sh -h          # every flag
#
# Why it measures so (cmd/instr-gate/main.go has the mechanics). A gate
# needs counts that repeat to well under its 3 %, on any load, fast:
# - GOGC=off for the server. With the collector on, when it runs moves the
#   counts by ±1.5 %. Allocation regressions are gated exactly by
#   budgets.json (TestAllocBudgets); run-instr.sh still reports the GC-on
#   figures in results/instr-*.md.
# - No randomness or timing left in the runtime that can be switched off:
#   GODEBUG memprofilerate=0 (random allocation samples with stack walks),
#   schedtrace=3600000 (keeps the sysmon thread at its 10 ms pace instead of
#   waking it at every request to poll every 20 µs, when it takes the P from
#   system calls that happen to last under load: 1-2 % more, more on a busy
#   machine), GOMAXPROCS=1 (no threads spinning for work), no async preemption.
# - Paced requests on one keep-alive connection: each is sent only when
#   every server thread is blocked (futex or nanosleep, one in epoll_wait; read
#   from /proc), so each request takes the same path through the runtime. Sent
#   back to back they race the end of the previous request (net/http's
#   background read, the poller), and load decides the race: 2-5 % apart.
# - Exact windows instead of subtraction: callgrind runs with
#   --dump-before=main.mark, and the server calls main.mark when the client
#   asks (its stdin), right before and after the measured requests; the dump
#   between holds those requests alone, so no second empty run and nothing of
#   start-up, warm-up or connection set-up. (--toggle-collect cannot do this:
#   it follows one thread's call stack, and goroutines move between threads.)
# - Fast: one valgrind process per framework serves all the scenarios (one
#   listener each), the two frameworks side by side on the 2 cores; warm-ups
#   (5000 pipelined requests, then 100 paced, enough for the runtime's type
#   assertion caches, which fill at random) run with instrumentation off,
#   switched by client requests from cmd/instr (amd64); 1000 requests are
#   measured per scenario (github-all: 1015, five rounds of its table).
# Result: repeated runs agree within half a percent, alone or side by side, on
# an idle or a loaded machine (a heavily loaded one adds a few hundred
# instructions per request, sysmon's clock: hence the second run, lower count
# kept, before failing and for a baseline). Counts depend on the Go version, valgrind and the CPU
# architecture (the baseline records them): a toolchain change is a reason to
# update the baseline.
set -euo pipefail
cd "$(dirname "$0")"
command -v valgrind >/dev/null || { echo "instr-gate: valgrind is needed (Debian: apt-get install valgrind)" >&2; exit 1; }
if [ $# -eq 0 ]; then
	# The gate itself (not -update, -measure or -h): the router against gin
	# first (router-gate.sh, about 10 s).
	./router-gate.sh
fi
mkdir -p bin
go build -o bin/ ./cmd/instr ./cmd/instr-gate
exec bin/instr-gate -instr bin/instr "$@"
