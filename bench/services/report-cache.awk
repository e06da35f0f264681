# Turns run-cache.sh's raw output into BENCHMARKS.md's tables: the median
# ns/op of each benchmark over the rounds, its allocs/op, and the median over
# the rounds of its ratio to the peer measured in the same round (paired: the
# load of a shared machine drifts between rounds more than within one).
function median(name,   n, i, j, t, a) {
	n = split(ns[name], a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	if (n == 0) return -1
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# ratio returns the median over the rounds of name's ns/op over base's.
function ratio(name, base,   n, m, i, j, t, a, b, r) {
	n = split(ns[name], a, " ")
	m = split(ns[base], b, " ")
	if (m < n) n = m
	for (i = 1; i <= n; i++) r[i] = a[i] / b[i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
	if (n == 0) return -1
	return (n % 2) ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
}
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	for (i = 2; i <= NF; i++) {
		if ($(i) == "ns/op") ns[name] = ns[name] " " $(i - 1)
		if ($(i) == "allocs/op") allocs[name] = $(i - 1)
		if ($(i) == "computes/op") computes = $(i - 1)
	}
	if (!(name in seen)) { seen[name] = 1; order[++norder] = name }
}
END {
	split("golang-lru otter plinth-memory-get plinth-memory-remember plinth-memory-remember-tagged plinth-otter-remember", libs, " ")
	for (k = 1; k <= 4; k++) {
		group = (k % 2 == 1) ? "BenchmarkCacheHit" : "BenchmarkCacheHitParallel"
		group = group "/" ((k <= 2) ? "uniform" : "zipf")
		printf "\n| %s | ns/op | allocs/op | / golang-lru (per round) |\n|---|---:|---:|---:|\n", group
		base = median(group "/golang-lru")
		for (l = 1; l <= 6; l++) {
			m = median(group "/" libs[l])
			if (m < 0) continue
			printf "| %s | %.1f | %s | %.2f |\n", libs[l], m, allocs[group "/" libs[l]], ratio(group "/" libs[l], group "/golang-lru")
		}
	}
	if ("BenchmarkCacheRedisHit/go-redis-get" in seen) {
		printf "\n| BenchmarkCacheRedisHit | ns/op | allocs/op | / its go-redis peer (per round) |\n|---|---:|---:|---:|\n"
		split("go-redis-get rediscache-get rediscache-remember-string go-redis-get-json rediscache-remember-struct", r, " ")
		for (l = 1; l <= 5; l++) {
			name = "BenchmarkCacheRedisHit/" r[l]
			peer = (l <= 3) ? "BenchmarkCacheRedisHit/go-redis-get" : "BenchmarkCacheRedisHit/go-redis-get-json"
			printf "| %s | %.0f | %s | %.2f |\n", r[l], median(name), allocs[name], ratio(name, peer)
		}
	}
	if ("BenchmarkCacheClock/time.Now" in seen) printf "\nBenchmarkCacheClock: a time.Now costs %.1f ns, an atomic load %.2f ns: Memory checks expiry against a coarse clock (MemoryOptions.Resolution, 10 ms) instead of reading the time per hit.\n", median("BenchmarkCacheClock/time.Now"), median("BenchmarkCacheClock/atomic-load")
	if (computes != "") printf "\nBenchmarkCacheStampede: 64 concurrent misses of one cold key, %s computes/op (1 = single flight).\n", computes
}
