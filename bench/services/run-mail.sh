#!/usr/bin/env bash
# Runs the mail benchmarks (mail_bench_test.go: Plinth's mail.Templates and
# smtpmail beside raw go-mail, rendering one welcome message and sending it
# to the in-process catcher mail/smtpmail/smtptest) and writes
#   ../results/mail-<date>.txt   raw `go test -bench` output, the run's command,
#                                machine and commit on top
#   ../results/mail-<date>.md    BENCHMARKS.md's "Mail" section (bench/cmd/report
#                                copies it): medians of the rounds; each ratio is
#                                Plinth's figure over go-mail's, from the same rounds.
# Two times per message: the process's CPU time (user and system, the in-process
# catcher's share included, the same work for both libraries), which other load on
# the machine disturbs little, and the wall clock, which it disturbs a lot.
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
day=$(date -u +%Y-%m-%d)
out=../results/mail-$day.txt
md=../results/mail-$day.md
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

{
	echo "# Mail: render and send, beside raw go-mail ($day)"
	echo
	echo "Command: \`BENCHTIME=$benchtime bench/services/run-mail.sh $rounds\` ($(sed -n 's/^date: //p' "$out"), commit $commit; raw output in \`$(basename "$out")\`)."
	echo
	echo "- One welcome message per operation: a subject, a text part and an HTML part, each through a layout, the"
	echo "  name HTML-escaped, to one recipient. Plinth: \`mail.Templates.Render\` and \`smtpmail.Mailer.Send\` (the MIME"
	echo "  form is the core's). go-mail v0.8.1: the same template files executed with text/template and"
	echo "  html/template, a \`gomail.Msg\` (SetBodyString, AddAlternativeString), \`Client.Send\` (reused) or"
	echo "  \`DialAndSendWithContext\` (new). Both send to the same in-process catcher (mail/smtpmail/smtptest, no TLS), in"
	echo "  the same rounds; \`TestMailSidesAgree\` checks that both deliver the same subject, text and HTML."
	echo "- Render: the templates and the MIME form written to io.Discard, no network. Send/conn=reused: one SMTP"
	echo "  connection for every message (go-mail says NOOP and RSET around each message, Plinth neither);"
	echo "  conn=new: a connection per message (dial, greeting, EHLO, the transaction, QUIT)."
	echo "- CPU µs/msg is the process's user and system time per message, the catcher's share included (the same"
	echo "  work for both): other tenants of the machine disturb it much less than the wall clock. Median of"
	echo "  $rounds rounds, each under flock /tmp/plinth-wallclock.lock; $(nproc) CPUs; load $(sed -n 's/^load: //p' "$out")."
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
		if ($(i + 1) == "cpu-µs/op") cpu[scen, lib] = cpu[scen, lib] " " $i
		if ($(i + 1) == "B/op") by[scen, lib] = by[scen, lib] " " $i
		if ($(i + 1) == "allocs/op") al[scen, lib] = al[scen, lib] " " $i
	}
	if (!(scen in seen)) { seen[scen] = 1; order[++k] = scen }
}
END {
	print ""
	print "| scenario | Plinth CPU µs/msg | go-mail CPU µs/msg | Plinth / go-mail (CPU) | Plinth µs/msg (wall) | go-mail µs/msg (wall) | Plinth / go-mail (wall) | Plinth allocs (B) | go-mail allocs (B) |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= k; i++) {
		s = order[i]; p = median(ns[s, "plinth"]); g = median(ns[s, "go-mail"]); pc = median(cpu[s, "plinth"]); gc = median(cpu[s, "go-mail"])
		printf "| %s | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | %d (%d) | %d (%d) |\n", s, pc, gc, pc / gc, p / 1000, g / 1000, p / g, median(al[s, "plinth"]), median(by[s, "plinth"]), median(al[s, "go-mail"]), median(by[s, "go-mail"])
	}
}' "$tmp/raw.txt"
} >"$md"
echo "wrote $md; regenerate BENCHMARKS.md with: cd bench && go run ./cmd/report" >&2
cat "$md"
