package bench

// The hot path of Plinth's own HTTP/1.1 engine (Config.Engine = "fast") over loopback, in
// process: a keep-alive connection sends a scenario's request and reads the
// answer, one at a time or 16 pipelined in one write. The client allocates
// nothing per request, so -benchmem's allocs/op and the budgets under
// "plinth-engine" in budgets.json are the server's:
//
//	go test -run '^$' -bench 'Engine' -benchmem
//
// Frameworks: plinth-fast and plinth-new-fast (plinth.Bare() and
// plinth.New() on the engine), plinth and plinth-new (the same Apps on
// net/http), std (net/http's ServeMux on the zero-value http.Server) and
// fasthttp (its native handler). Wall-clock ratios between them belong to
// run-engine.sh (server and load generator on separate CPUs); these are for
// profiles (-cpuprofile) and allocations.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/internal/httpserve"
)

var engineBenchFrameworks = []string{"plinth-fast", "plinth-new-fast", "plinth", "plinth-new", "std", httpserve.FastHTTP}

// startServer serves the scenario with fw on a loopback listener until the
// test ends.
func startServer(tb testing.TB, fw, scenario string) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	if fw == httpserve.FastHTTP {
		stop, served, err := httpserve.ServeFastHTTP(scenario, ln)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { stop(); <-served })
		return ln.Addr().String()
	}
	h, err := httpserve.HandlerNamed(fw, scenario)
	if err != nil {
		tb.Fatal(err)
	}
	if app, ok := h.(*plinth.App); ok {
		app.Logger = slog.New(slog.DiscardHandler)
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- app.Serve(ctx, ln) }()
		tb.Cleanup(func() {
			cancel()
			if err := <-served; err != nil {
				tb.Errorf("%s: Serve: %v", fw, err)
			}
		})
		return ln.Addr().String()
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	tb.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// rawClient is one keep-alive connection that sends a fixed request and
// reads answers without allocating.
type rawClient struct {
	conn  net.Conn
	br    *bufio.Reader
	req   []byte // the request, batch times over
	batch int
	want  int
}

func dialRaw(tb testing.TB, addr, scenario string, batch int) *rawClient {
	tb.Helper()
	reqs, err := httpserve.Requests(scenario)
	if err != nil {
		tb.Fatal(err)
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	return &rawClient{conn: conn, br: bufio.NewReaderSize(conn, 64<<10),
		req: bytes.Repeat(reqs[0].Raw, batch), batch: batch, want: reqs[0].Status}
}

// round sends the batch in one write and reads its answers.
func (c *rawClient) round() error {
	if _, err := c.conn.Write(c.req); err != nil {
		return err
	}
	for range c.batch {
		if err := c.readResponse(); err != nil {
			return err
		}
	}
	return nil
}

var errBadResponse = errors.New("bad response")

// readResponse reads one response with a Content-Length body.
func (c *rawClient) readResponse() error {
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if len(line) < 12 || int(line[9]-'0')*100+int(line[10]-'0')*10+int(line[11]-'0') != c.want {
		return errBadResponse
	}
	length := -1
	for {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 {
			break
		}
		const cl = "content-length:"
		if len(line) > len(cl) && strings.EqualFold(string(line[:len(cl)]), cl) {
			length = 0
			for _, ch := range bytes.TrimSpace(line[len(cl):]) {
				if ch < '0' || ch > '9' {
					return errBadResponse
				}
				length = length*10 + int(ch-'0')
			}
		}
	}
	if length < 0 {
		return errBadResponse // the scenarios' bodies fit the engine's buffer: never chunked
	}
	_, err = c.br.Discard(length)
	return err
}

// BenchmarkEngine is one request (or one of 16 pipelined) per op.
func BenchmarkEngine(b *testing.B) {
	for _, sc := range []string{"minimal", "json"} {
		for _, fw := range engineBenchFrameworks {
			// The parent runs once: its server outlives the sub-benchmarks'
			// repeated runs.
			b.Run(fmt.Sprintf("sc=%s/fw=%s", sc, fw), func(b *testing.B) {
				addr := startServer(b, fw, sc)
				for _, batch := range []int{1, 16} {
					mode := "plain"
					if batch > 1 {
						mode = fmt.Sprintf("pipelined%d", batch)
					}
					b.Run("mode="+mode, func(b *testing.B) {
						c := dialRaw(b, addr, sc, batch)
						for range 100 { // warm-up: pools, the runtime's caches
							if err := c.round(); err != nil {
								b.Fatal(err)
							}
						}
						b.ReportAllocs()
						b.ResetTimer()
						for i := 0; i < b.N; i += batch {
							if err := c.round(); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			})
		}
	}
}

// engineBudgets is budgets.json's section for the engine: "FRAMEWORK/SCENARIO"
// -> allocations per request over loopback, server and client in process
// (the client allocates nothing).
const engineBudgets = "plinth-engine"

// checkEngineBudgets measures each engine pair of budgets over loopback,
// one request at a time and 16 pipelined, and fails above the budget; the
// engine's own share should be the head string alone (docs/engine.md).
func checkEngineBudgets(t *testing.T, budgets map[string]float64) {
	if len(budgets) == 0 {
		t.Errorf("budgets.json has no %q section", engineBudgets)
		return
	}
	for pair, limit := range budgets {
		fw, sc, ok := strings.Cut(pair, "/")
		if !ok {
			t.Errorf("budgets.json %s: %q is not FRAMEWORK/SCENARIO", engineBudgets, pair)
			continue
		}
		t.Run(engineBudgets+"/"+pair, func(t *testing.T) {
			addr := startServer(t, fw, sc)
			for _, batch := range []int{1, 16} {
				c := dialRaw(t, addr, sc, batch)
				var err error
				round := func() {
					if e := c.round(); e != nil && err == nil {
						err = e
					}
				}
				for range 200 {
					round()
				}
				allocs := testing.AllocsPerRun(max(1000/batch, 50), round) / float64(batch)
				if err != nil {
					t.Fatal(err)
				}
				if allocs > limit {
					t.Errorf("%s on %s (%d per write): %.2f allocations per request, budget %v (bench/budgets.json %s)",
						fw, sc, batch, allocs, limit, engineBudgets)
				}
			}
		})
	}
}
