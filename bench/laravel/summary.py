#!/usr/bin/env python3
"""summary.py RAW.tsv: the medians of run.sh's rounds as a Markdown table.

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
        "rss": int(rss) / 1024, "fail": int(kv["failures"]), "req": req,
    })


def med(rows, k):
    return statistics.median(r[k] for r in rows)


print("| scenario | conns | server | req/s | p50 ms | p99 ms | CPU µs/req | RSS MB | failures/requests | vs Laravel | vs gin |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
keys = sorted({(s, c) for s, c, _ in cells}, key=lambda k: (SCEN.index(k[0]) if k[0] in SCEN else 99, -k[1]))
for scen, conns in keys:
    for server in sorted({k[2] for k in cells if k[:2] == (scen, conns)}, key=lambda s: ORDER.index(s) if s in ORDER else 99):
        rows = cells[(scen, conns, server)]
        rps = med(rows, "rps")
        ratio = lambda other: (f"{rps / med(cells[(scen, conns, other)], 'rps'):.1f}x"
                               if server.startswith("plinth") and cells.get((scen, conns, other)) else "")
        print(f"| {scen} | {conns} | {server} | {rps:,.0f} | {med(rows, 'p50'):.2f} | {med(rows, 'p99'):.2f} | "
              f"{med(rows, 'cpu'):,.0f} | {med(rows, 'rss'):.0f} | {sum(r['fail'] for r in rows)}/{sum(r['req'] for r in rows)} | "
              f"{ratio('laravel')} | {ratio('gin')} |")
print(f"\nMedians of {max(len(v) for v in cells.values()) if cells else 0} rounds.")
