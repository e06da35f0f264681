// Package services holds the benchmarks of the jobs, cache and mail layers
// (the jobs, cache and mail packages), each beside the library it stands on, in the same run: a
// module of its own so that the peers (golang-lru, otter, raw River, raw
// go-mail) stay out of every other go.sum. The commands in cmd/ write
// bench/results files that cmd/report copies into BENCHMARKS.md; the
// cache's benchmarks are in cache_*_test.go, run by run-cache.sh.
package services
