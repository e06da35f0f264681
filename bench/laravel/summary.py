#!/usr/bin/env python3
"""summary.py RAW.tsv: run.sh's report, bench/results/laravel-DATE.md: the
command and settings (from run.sh's environment), what each site does and
where they differ, what could not be measured, and the medians of the
rounds as a Markdown table.

Each row: a scenario at a number of connections on one server; req/s, p50
and p99 latency, server CPU time per request, resident memory (the median
over the rounds of each), failures (the sum over the rounds), and for the
Plinth rows the ratios of req/s to Laravel's and gin's in the same rounds."""
import os
import statistics
import sys
from collections import defaultdict

TICK_US = 1e6 / os.sysconf("SC_CLK_TCK")
ORDER = ["plinth", "plinth-fast", "gin", "laravel", "floor"]
SCEN = ["hello", "home-anon", "home-signed", "account", "login"]

cells = defaultdict(list)
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) < 7:
        continue
    rnd, server, scen, conns, result, ticks, rss = f[:7]
    kv = dict(x.split("=") for x in result.split()[1:])
    req, secs = int(kv["requests"]), float(kv["seconds"])
    cells[(scen, int(conns), server)].append({
        "rps": req / secs if secs else 0,
        "p50": int(kv["p50"]) / 1000, "p99": int(kv["p99"]) / 1000,
        "cpu": int(ticks) * TICK_US / req if req else 0,
        "rss": int(rss) / 1024, "fail": int(kv["failures"]), "req": req, "round": int(rnd),
    })


NOTES = """\
- Sites: examples/web on plinth.New() (its memory session store), bench/websites/gin (gin, scs in memory,
  gorilla/csrf, html/template), bench/laravel/site (Laravel 8.83 from Debian's php-laravel-framework, PHP 8.2
  FPM `pm=static` behind nginx, file sessions, config/route/view caches, opcache without timestamp checks,
  APP_DEBUG off), bench/websites/floor (net/http answering fixed bytes: no headers, session, CSRF, locale,
  view or hash; the floor, not a site).
- The same work on every site: Plinth's default security headers (helmet's set on pages and redirects, the
  short set on text), a request ID, the language from ?lang=, the lang cookie or Accept-Language, the
  session's user, a CSRF token in every page (`<meta name="csrf-token">`, as Laravel's layouts have), the
  same layout, nav and strings, argon2id at m=19 MiB, t=2, p=1 for the password, a sign-in throttle, a new
  session ID at sign-in and a flash.
- Differences that are the frameworks' design, not skipped work: Laravel starts a session for every visitor
  of the `web` routes (/hello included): a session file written and two encrypted cookies per anonymous
  request, where Plinth gives an anonymous visitor a stateless HMAC'd CSRF cookie and no session, and
  gorilla/csrf sets its cookie on every response (/hello too). Laravel's Cache-Control is its default
  (no-cache, private), the Go sites' no-store. At sign-in Plinth and Laravel also renew the CSRF secret;
  gorilla/csrf cannot. Laravel's throttle (Breeze's RateLimiter, file cache) counts failed attempts; Plinth's
  and the gin site's count every attempt and refund a success, so they admit 5 sign-ins in flight per
  account and client: login runs at LOGIN_CONNS connections. Plinth bounds concurrent hashes (GOMAXPROCS,
  then a queue, then 503); the others do not.
- login: POST /login, each request a fresh visitor's cookie and token fetched before the run; it is
  dominated by the password hash at equal cost on all three and is not held to the speed goal.
- CPU µs/req: utime+stime of all the server's processes over the run (nginx and every PHP-FPM process for
  Laravel) per request. RSS: VmRSS after the run, summed over those processes (for Laravel the opcache
  shared memory counts once per process, so the sum overstates it).
- Reading the table on a shared machine: a server whose req/s times CPU µs/req is well under one second per
  second was waiting for its CPU (other tenants on CPU 0), not working; req/s moves with that, CPU µs/req
  much less. Where the two disagree, CPU µs/req says which site does less work per request.
- Not measured here: Laravel Octane (Swoole or RoadRunner workers keep the application booted between
  requests; it needs Composer packages and no Composer registry is reachable), Redis sessions for Laravel
  (php-redis and a server), PHP's JIT and preloading (opcache defaults), Plinth's fast engine
  (PLINTH_ENGINE=fast; run.sh measures it when the built examples/web accepts the variable).
"""


def header():
    env = os.environ
    cmd = env.get("RUN_COMMAND", "bench/laravel/run.sh")
    date = env.get("RUN_DATE", "")
    print(f"# Whole site: Plinth, gin and Laravel on PHP-FPM ({date[:10]})\n")
    print(f"Command: `{cmd}` ({date}).\n")
    print(f"- Server pinned to CPU {env.get('SERVER_CPUS', '0')}, wrk ({env.get('WRK_THREADS', '1')} thread) to CPU "
          f"{env.get('WRK_CPUS', '1')}; {env.get('DURATION', '?')} per run at {env.get('CONNS', '64')} connections, "
          f"{env.get('LAT_DURATION', '?')} at {env.get('LAT_CONNS', '1')} (latency), login at "
          f"{env.get('LOGIN_CONNS', '4')}; median of {env.get('ROUNDS', '?')} rounds, the servers in a different order each "
          f"round, every round under flock /tmp/plinth-wallclock.lock; PHP-FPM workers: {env.get('LARAVEL_WORKERS', '4')}.")
    print(f"- Machine: {env.get('MACHINE', '?')}. Shared with other tenants: compare ratios within this table only.")
    print(NOTES)


def per_round(rows):
    return " ".join(f"{r['rps']:.0f}" for r in sorted(rows, key=lambda r: r["round"]))


def med(rows, k):
    return statistics.median(r[k] for r in rows)


if os.environ.get("RUN_DATE"):
    header()
print("| scenario | conns | server | req/s | p50 ms | p99 ms | CPU µs/req | RSS MB | failures/requests | vs Laravel | vs gin | req/s per round |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
keys = sorted({(s, c) for s, c, _ in cells}, key=lambda k: (SCEN.index(k[0]) if k[0] in SCEN else 99, -k[1]))
for scen, conns in keys:
    for server in sorted({k[2] for k in cells if k[:2] == (scen, conns)}, key=lambda s: ORDER.index(s) if s in ORDER else 99):
        rows = cells[(scen, conns, server)]
        rps = med(rows, "rps")
        ratio = lambda other: (f"{rps / med(cells[(scen, conns, other)], 'rps'):.1f}x"
                               if server.startswith("plinth") and cells.get((scen, conns, other)) else "")
        print(f"| {scen} | {conns} | {server} | {rps:,.0f} | {med(rows, 'p50'):.2f} | {med(rows, 'p99'):.2f} | "
              f"{med(rows, 'cpu'):,.0f} | {med(rows, 'rss'):.0f} | {sum(r['fail'] for r in rows)}/{sum(r['req'] for r in rows)} | "
              f"{ratio('laravel')} | {ratio('gin')} | "
              f"{per_round(rows)} |")
print(f"\nMedians of {max(len(v) for v in cells.values()) if cells else 0} rounds.")

# The goal of this benchmark, checked on these medians: Plinth at least 10x
# Laravel's req/s at an equal or lower p99, and ahead of gin, on every route
# but login (dominated by the password hash at equal cost: reported only).
lines = []
for scen, conns in keys:
    if scen == "login":
        continue
    p, l, g = (cells.get((scen, conns, s)) for s in ("plinth", "laravel", "gin"))
    if not p:
        continue
    parts = []
    if l:
        r = med(p, "rps") / med(l, "rps")
        ok = r >= 10 and med(p, "p99") <= med(l, "p99")
        parts.append(f"{'met' if ok else 'NOT met'} against Laravel ({r:.1f}x req/s, p99 {med(p, 'p99'):.1f} vs {med(l, 'p99'):.1f} ms)")
    if g:
        r = med(p, "rps") / med(g, "rps")
        c = med(g, "cpu") / med(p, "cpu")
        parts.append(f"{'ahead of' if r >= 1 else 'BEHIND'} gin in req/s ({r:.2f}x); "
                     f"gin's CPU µs per request over Plinth's {c:.2f}")
    lines.append(f"- {scen} at {conns} connection{'s' if conns > 1 else ''}: " + "; ".join(parts) + ".")
if lines:
    print("\nGoal (Plinth ≥ 10x Laravel at an equal or lower p99, ahead of gin; login not held to it), on these medians:\n")
    print("\n".join(lines))
