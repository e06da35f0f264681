// Package services holds the benchmarks of the jobs, cache and mail layers
// (issue 30), each beside the library it stands on, in the same run: a
// module of its own so that the peers (golang-lru, raw River, raw go-mail)
// stay out of every other go.sum. The cache's are in cache_*_test.go, run by
// run-cache.sh.
package services
