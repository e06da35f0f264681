#!/usr/bin/env bash
# Runs the mail benchmarks (mail_bench_test.go: Plinth's mail.Templates and
# smtpmail beside raw go-mail, rendering one welcome message and sending it
# to the in-process catcher mail/smtp/smtptest) and writes
#   ../results/mail-<date>.txt   raw `go test -bench` output, the run's command,
#                                machine and commit on top, then the Markdown
#                                table of BENCHMARKS.md's "Mail" section
#                                (medians of the rounds; the ratio is Plinth's
#                                time over go-mail's, in the same round set).
#
# Usage: bench/services/run-mail.sh [rounds]     (rounds defaults to 5)
# BENCHTIME=2s bench/services/run-mail.sh 7      (-benchtime, default 1s)
# Every round takes /tmp/plinth-wallclock.lock (flock), so that the other wall-clock
# measurements of the machine do not run at the same time; the two libraries run
# in the same round, one after the other.
set -euo pipefail

rounds=${1:-5}
case $rounds in '' | *[!0-9]*)
	echo "usage: $0 [rounds]" >&2
	exit 2
	;;
esac
benchtime=${BENCHTIME:-1s}

cd "$(dirname "$0")"
mkdir -p ../results
out=../results/mail-$(date -u +%Y-%m-%d).txt
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo none)
if [ -n "$(git status --porcelain -- ../../mail . 2>/dev/null || true)" ]; then
	commit="$commit-dirty"
fi
cpu_model=$(grep -m1 -E '^(model name|Model|cpu model)[[:space:]]*:' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{
	echo "command: BENCHTIME=$benchtime bench/services/run-mail.sh $rounds"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit: $commit"
	echo "go: $(go env GOVERSION)"
	echo "kernel: $(uname -r)"
	echo "nproc: $(nproc), GOMAXPROCS default (the catcher's goroutines share the CPUs)"
	echo "cpu-model: ${cpu_model:-unknown}"
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "rounds: $rounds, benchtime: $benchtime, each round under flock /tmp/plinth-wallclock.lock"
} >"$out"

echo "writing $out" >&2
go test -c -o "$tmp/services.test" .
for round in $(seq 1 "$rounds"); do
	echo "round $round of $rounds" >&2
	flock /tmp/plinth-wallclock.lock "$tmp/services.test" -test.run '^$' -test.bench '^BenchmarkMail(Render|Send)$' \
		-test.benchtime "$benchtime" -test.count 1 | grep '^Benchmark' | tee -a "$tmp/raw.txt" >&2
done
cat "$tmp/raw.txt" >>"$out"

# The table: for each scenario, the median ns/op and allocs/op of each library.
awk '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	lib = name; sub(/.*lib=/, "", lib)
	scen = name; sub(/\/?lib=.*/, "", scen); sub(/^BenchmarkMail/, "", scen)
	for (i = 3; i < NF; i++) {
		if ($(i + 1) == "ns/op") ns[scen, lib] = ns[scen, lib] " " $i
		if ($(i + 1) == "B/op") by[scen, lib] = by[scen, lib] " " $i
		if ($(i + 1) == "allocs/op") al[scen, lib] = al[scen, lib] " " $i
	}
	if (!(scen in seen)) { seen[scen] = 1; order[++k] = scen }
}
END {
	print ""
	print "| scenario | Plinth µs/msg | go-mail µs/msg | Plinth / go-mail | Plinth allocs (B) | go-mail allocs (B) |"
	print "|---|---:|---:|---:|---:|---:|"
	for (i = 1; i <= k; i++) {
		s = order[i]; p = median(ns[s, "plinth"]); g = median(ns[s, "go-mail"])
		printf "| %s | %.1f | %.1f | %.2f | %d (%d) | %d (%d) |\n", s, p / 1000, g / 1000, p / g, median(al[s, "plinth"]), median(by[s, "plinth"]), median(al[s, "go-mail"]), median(by[s, "go-mail"])
	}
}' "$tmp/raw.txt" | tee -a "$out"
