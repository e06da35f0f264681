// Command realtime serves server-sent events and a WebSocket echo with
// Plinth, tied to the drain:
//
//	go run ./examples/realtime            # serves on :8080, or on $PLINTH_ADDR
//
// GET / is a page using both (EventSource and WebSocket, its inline script
// under the CSP nonce); GET /events is an SSE stream of "tick" events about
// every 100 ms with increasing integer ids (Last-Event-ID: N resumes after
// N; an id that is not a whole number below 2^53 - 1, JavaScript's largest
// exact integer, is ignored and the stream starts from 1); GET /ws echoes every WebSocket message (64 KiB at most; a larger one
// gets close 1009). On SIGTERM or SIGINT the App drains
// (PLINTH_DRAIN_DELAY, PLINTH_SHUTDOWN_TIMEOUT): SSE streams get
// "event: shutdown" and end, every WebSocket gets close 1001, and the
// process exits 0.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newApp().Run(); err != nil {
		fmt.Fprintf(os.Stderr, "realtime stopped: %v\n", err)
		os.Exit(1)
	}
}
