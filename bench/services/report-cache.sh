#!/usr/bin/env bash
# Renders run-cache.sh's raw output (bench/results/cache-<date>.txt) as the
# "Cache" section of BENCHMARKS.md (the .md beside it).
# Usage: ./report-cache.sh ../results/cache-<date>.txt > ../results/cache-<date>.md
set -euo pipefail
cd "$(dirname "$0")"
file=$1
cmd=$(head -1 "$file" | sed 's/^# //')
machine=$(sed -n 2p "$file" | sed 's/^# //')
cat <<MD
# Cache

Produced by \`$cmd\` ($machine; raw output in \`$(basename "$file")\`). Median of the rounds; each round runs every
benchmark once, so the libraries alternate. See \`bench/services/cache_bench_test.go\`.

Hits: 10,000 keys, all present, read in turn (uniform: every hit of an LRU moves its entry, and little stays in
the CPU's caches) or by Zipf's law (s = 1.01: a few keys take most reads, as in real traffic); every library holds
the same keys at a capacity of 20,000, the value a small struct (a title, a count, two tags). golang-lru is
hashicorp/golang-lru/v2 v2.0.7 (one mutex); otter is maypok86/otter/v2 v2.4.0. plinth-memory-get is
\`cache.MemoryStore.Get\` (bytes); plinth-memory-remember is \`cache.Of[T].Fetch\` on MemoryStore (the key checked, the T
returned, the outcome said; -tagged: with one tag, its generation checked); plinth-otter-remember is the same on
the otter module's store. Parallel: RunParallel on GOMAXPROCS (2) goroutines, ns per hit.
MD
awk -f report-cache.awk "$file"
cat <<'MD'

Redis: one hit over loopback, raw go-redis v9.23.0 GET beside redisstore's `CacheStore.Get` and `Of[string]` Remember
hit, and raw GET + `json.Unmarshal` beside `Of[struct]` Remember hit. The allocation bound (at most one more than
go-redis's GET) is asserted by `TestCacheHitAllocs` in redisstore; Memory's 0 by `TestHitAllocs` in cache.
MD
