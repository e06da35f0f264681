package tfb

import (
	"fmt"
	"net/http"
	"net/http/pprof"
	"os"
	"strings"
)

// PprofVar names the environment variable that, set to an address such as
// 127.0.0.1:6060, makes a server also serve net/http/pprof there, on its
// own listener, so that profiling never touches the benchmarked handler.
const PprofVar = "TFB_PPROF"

// StartPprof serves net/http/pprof on PprofVar's address when it is set.
func StartPprof() {
	addr := strings.TrimSpace(os.Getenv(PprofVar))
	if addr == "" {
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() {
		if err := http.ListenAndServe(addr, mux); err != nil {
			fmt.Fprintf(os.Stderr, "%s=%s: %v\n", PprofVar, addr, err)
		}
	}()
}
