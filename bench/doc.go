// Package bench holds Plinth's benchmark suite as tests: the in-process
// router benchmarks (bench_test.go, one benchmark per scenario and one
// sub-benchmark per framework), the checks that every framework answers
// every scenario correctly before it is timed (scenarios_test.go), the
// allocation gate (budgets_test.go, budgets.json), the middleware
// catalogue's benchmarks (mw_*_test.go), the validated-json scenario
// (validated_json_test.go) and the full production stack
// (fullstack_test.go). It exports nothing; run it with go test from
// this directory (the GitHub route table is read relative to it):
//
//	go test -run '^$' -bench '^BenchmarkMinimal$' -benchmem
//
// The code the benchmarks and the commands share is internal:
//
//	internal/suite      scenarios, framework adapters, middleware stacks, the response writer and checks, allocation counts
//	internal/httpserve  what cmd/bench-server and cmd/instr serve over real HTTP: frameworks by name, the std-limits server
//	internal/results    result files: loadgen runs, HTTP reports and their tables, medians
//	internal/validated  the validated-json scenario's handlers, one per framework
//	internal/fullstack  the full production stack (request ID, access log, Prometheus, tracing, gzip, concurrency limit) per framework
//
// The commands are under cmd/ (bench-server, loadgen, instr, alloc-count,
// benchtable, httptable, report) and the scripts that run them are *.sh;
// docs/performance.md describes them.
package bench
