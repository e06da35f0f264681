#!/usr/bin/env bash
# The jobs core's enqueue path (BenchmarkJobsEnqueue): Client.Enqueue on a
# backend that stores nothing, without and with two options, beside
# json.Marshal of the same arguments. The three run interleaved, one round
# each per pass, so that each pass's ratio compares figures measured side
# by side; pinned to one CPU, GOMAXPROCS=1, under the wall-clock lock.
#
# Wall-clock figures on the shared 2-core machine move by 2-3x between
# passes; so the script also counts instructions per operation with
# valgrind's callgrind (GOGC=off, async preemption off; the difference between runs of 2N and N
# operations, divided by N), which repeats within a percent whatever else
# runs, and needs no lock.
#
# Usage: ./run-jobs.sh [passes]   (default 8; BENCHTIME default 200ms;
#        INSTR_N default 20000; INSTR=0 skips callgrind)
# Writes results/jobs-enqueue-<date>.txt (the raw lines and the summary)
# and results/jobs-enqueue-<date>.md, the table cmd/report copies into
# BENCHMARKS.md ("Jobs: the enqueue path").
set -euo pipefail
cd "$(dirname "$0")"
passes=${1:-8}
benchtime=${BENCHTIME:-200ms}
cpu=${CPU:-1}
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/bench.test" .
day=$(date -u +%F)
out=results/jobs-enqueue-$day.txt
md=results/jobs-enqueue-$day.md
{
	echo "command: bench/run-jobs.sh $passes (BENCHTIME=$benchtime, taskset -c $cpu, GOMAXPROCS=1, flock /tmp/plinth-wallclock.lock)"
	echo "date: $(date -u +%FT%TZ)"
	echo "commit: $(git rev-parse --short=12 HEAD 2>/dev/null || echo none)"
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
	for _ in $(seq "$passes"); do
		GOMAXPROCS=1 flock /tmp/plinth-wallclock.lock taskset -c "$cpu" "$tmp/bench.test" -test.run '^$' \
			-test.bench '^BenchmarkJobsEnqueue$' -test.benchmem -test.cpu 1 -test.count 1 -test.benchtime "$benchtime" | grep '^Benchmark'
	done
} >"$tmp/raw"
awk '
	/^Benchmark/ { name=$1; sub(/^BenchmarkJobsEnqueue\//, "", name); v[name, ++n[name]] = $3; allocs[name] = $7 }
	function median(a, k,   i, j, t, s) { for (i = 1; i <= k; i++) s[i] = a[i]; for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }; return k % 2 ? s[(k + 1) / 2] : (s[k / 2] + s[k / 2 + 1]) / 2 }
	END {
		print ""
		print "summary (median of passes; ratio = median of the per-pass ratios to json.Marshal):"
		split("plinth plinth-2-options json.Marshal", names, " ")
		for (x = 1; x <= 3; x++) {
			nm = names[x]; k = n[nm]
			for (i = 1; i <= k; i++) { a[i] = v[nm, i]; r[i] = v[nm, i] / v["json.Marshal", i] }
			printf "%-18s %8.1f ns/op  %s allocs/op  ratio %.2f\n", nm, median(a, k), allocs[nm], median(r, k)
			printf "%s %.1f %s %.2f %d\n", nm, median(a, k), allocs[nm], median(r, k), k > "'"$tmp/wall"'"
		}
	}' "$tmp/raw" >"$tmp/summary"
if [ "${INSTR:-1}" != 0 ] && command -v valgrind >/dev/null; then
	n=${INSTR_N:-20000}
	instr() { # sub-benchmark ops -> instructions of the whole run
		GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOGC=off GOMAXPROCS=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$tmp/bench.test" -test.run '^$' \
			-test.bench "^BenchmarkJobsEnqueue\$/^$1\$" -test.cpu 1 -test.count 1 -test.benchtime "${2}x" >/dev/null 2>&1
		awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg"
	}
	{
		echo
		echo "instructions per operation (callgrind, GOGC=off, (I(2N) - I(N)) / N, N=$n):"
		base=""
		for nm in json.Marshal plinth plinth-2-options; do
			a=$(instr "$nm" "$n"); b=$(instr "$nm" $((2 * n)))
			per=$(( (b - a) / n ))
			[ -n "$base" ] || base=$per
			awk -v nm="$nm" -v per="$per" -v base="$base" 'BEGIN { printf "%-18s %6d instructions/op  ratio %.2f\n", nm, per, per / base }'
			echo "$nm $per $base" >>"$tmp/instr"
		done
	} >>"$tmp/summary"
fi
cat "$tmp/raw" "$tmp/summary" >"$out"
cat "$tmp/summary"
# The table for BENCHMARKS.md.
{
	echo "# Jobs: the enqueue path ($day)"
	echo
	echo "Command: \`bench/run-jobs.sh $passes\` ($(sed -n 's/^date: //p' "$out"), commit $(sed -n 's/^commit: //p' "$out"); raw output in \`$(basename "$out")\`)."
	echo
	echo "- \`Client.Enqueue\` of a two-field job (\`BenchmarkJobsEnqueue\` in bench/jobs_test.go) on a backend that stores"
	echo "  nothing: what the jobs core adds in front of a backend's insert (the kind's lookup, the options, the JSON"
	echo "  encoding, the 1 MiB check, the one-job batch), beside \`json.Marshal\` of the same arguments alone, the floor"
	echo "  of any queue with JSON arguments. The insert itself is a database round trip: see \"Jobs: jobs/riverjobs beside raw River\"."
	echo "- Instructions per operation: valgrind's callgrind, GOGC=off, (I(2N) - I(N)) / N with N = ${INSTR_N:-20000}; they repeat"
	echo "  within a percent whatever else runs. Wall clock: median of $passes interleaved passes (one CPU, GOMAXPROCS=1, each"
	echo "  under flock /tmp/plinth-wallclock.lock), ratio = median of the per-pass ratios; load $(sed -n 's/^load: //p' "$out")"
	echo "  at the start, on a shared 2-CPU machine: the wall-clock column moves by 2-3x between passes. The wall clock"
	echo "  also pays the garbage collector for the extra allocations (the one-job batch), which the instruction counts,"
	echo "  taken with GOGC=off, leave out."
	echo
	echo "| operation | instructions/op | ratio to json.Marshal | ns/op (wall, median) | ratio (wall) | allocs/op |"
	echo "|---|---:|---:|---:|---:|---:|"
	while read -r nm ns allocs ratio _; do
		ins=$(awk -v nm="$nm" '$1 == nm { print $2 }' "$tmp/instr" 2>/dev/null)
		base=$(awk -v nm="$nm" '$1 == nm { print $3 }' "$tmp/instr" 2>/dev/null)
		iratio=$( [ -n "$ins" ] && awk -v a="$ins" -v b="$base" 'BEGIN { printf "%.2f", a / b }' || echo "n/a")
		echo "| $nm | ${ins:-n/a} | $iratio | $ns | $ratio | $allocs |"
	done <"$tmp/wall"
} >"$md"
echo "wrote $out and $md" >&2
