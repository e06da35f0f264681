package plinth

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// mayFold matches a line that starts with a space or tab after a header
// line: possible obs-fold, which the engine may refuse (refusalAllowed).
var mayFold = regexp.MustCompile(`\n[ \t]`)

// FuzzEngineStream sends a mutated stream of several requests over
// loopback to plinth.New() on net/http and on the engine and compares what
// the client received and what the handler saw, as TestEngineDifferential
// does. The seeds (a sample of the differential corpus, and
// testdata/fuzz/FuzzEngineStream) run in every `go test`; .ci/run fuzzes
// for a bounded time.
func FuzzEngineStream(f *testing.F) {
	std := startDiffServer(f, EngineStd, nil)
	eng := startDiffServer(f, EngineFast, nil)
	for i, c := range engineCorpus(f) {
		// A sample: every request shape, few of the large ones.
		if len(c.raw) < 4096 && (i%6 == 0 || strings.HasPrefix(c.name, "smuggle/") || strings.HasPrefix(c.name, "valid/pipelined")) {
			f.Add([]byte(c.raw))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > 1<<16 {
			return
		}
		var s, e outcome
		if slow := os.Getenv("PLINTH_TEST_FUZZ_SLOWLOG"); slow != "" {
			start := time.Now()
			defer func() {
				if d := time.Since(start); d > 500*time.Millisecond {
					f, _ := os.OpenFile(slow, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
					fmt.Fprintf(f, "%s %q std=%v fast=%v\n", d, raw, s.stuck, e.stuck)
					f.Close()
				}
			}()
		}
		done := make(chan struct{})
		go func() { s = std.exchange(t, raw); close(done) }()
		e = eng.exchange(t, raw)
		<-done
		same, more := verdict(s, e)
		switch {
		case same:
		case !more && earlyRefusal(t, std, raw, s, e):
		case !more && earlyRefusal(t, eng, raw, e, s):
		case more:
			t.Errorf("THE ENGINE SERVES WHAT net/http REFUSES (or hands the handler another request)\n  raw: %s\n  std: %s  fast: %s", quoteRaw(string(raw)), s, e)
		case mayFold.Match(raw) && e.closed && e.served() <= s.served() && slices.Equal(s.obs[:e.served()], e.obs):
			// obs-fold: an allowed refusal (RFC 9112 5.2).
		default:
			t.Errorf("responses differ\n  raw: %s\n  std: %s  fast: %s", quoteRaw(string(raw)), s, e)
		}
	})
}
