package tfb

import (
	"context"
	"fmt"
	"os"
)

// PeerMain is the body of a peer's main: it opens the pool (OpenPool),
// primes the cache, starts pprof when PprofVar asks, and calls serve with the Setup and Addr, exiting with a
// message on error.
func PeerMain(name string, serve func(s Setup, addr string) error) {
	StartPprof()
	ctx := context.Background()
	pool, err := OpenPool(ctx)
	if err == nil {
		var s Setup
		if s, err = NewPoolSetup(ctx, pool); err == nil {
			err = serve(s, Addr())
		}
	}
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	os.Exit(1)
}
