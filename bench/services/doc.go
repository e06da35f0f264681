// Package services holds the benchmarks of the services layers (jobs,
// cache, mail), each beside the raw library it stands on; the commands in
// cmd/ write bench/results files that cmd/report copies into
// BENCHMARKS.md.
package services
