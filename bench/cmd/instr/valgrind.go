package main

// Callgrind's client requests (valgrind/callgrind.h): the base is
// VG_USERREQ_TOOL_BASE('C','T').
const (
	callgrindBase                 = uintptr('C')<<24 | uintptr('T')<<16
	callgrindStartInstrumentation = callgrindBase + 4
	callgrindStopInstrumentation  = callgrindBase + 5
)

// callgrind sends one of the requests above; it reports false when the
// process does not run under valgrind or the architecture has no client
// requests here (then instrumentation cannot be switched, and cmd/instr-gate
// leaves it on from the start).
func callgrind(request uintptr) bool {
	if !haveClientRequests {
		return false
	}
	args := [6]uintptr{request}
	valgrindRequest(&args)
	return true
}
