package compress_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/middleware/compress"
	"github.com/plinth-go/plinth/racetest"
)

// sink is a ResponseWriter that keeps nothing but counts, reusable without
// allocating, for allocation budgets and benchmarks.
type sink struct {
	h      http.Header
	status int
	n      int
}

func newSink() *sink                { return &sink{h: http.Header{}} }
func (s *sink) Header() http.Header { return s.h }
func (s *sink) reset()              { clear(s.h); s.status, s.n = 0, 0 }
func (s *sink) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = 200
	}
	s.n += len(b)
	return len(b), nil
}
func (s *sink) WriteHeader(code int) {
	if s.status == 0 && code >= 200 {
		s.status = code
	}
}

var jsonType = []string{"application/json"}

// jsonHandler sends body as JSON without allocating itself.
func jsonHandler(body []byte) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		c.Header()["Content-Type"] = jsonType
		_, err := c.Writer().Write(body)
		return err
	}
}

// allocsPerRequest serves req through app in a loop and returns the
// allocations per request, after checking the response once.
func allocsPerRequest(t *testing.T, app http.Handler, req *http.Request, wantCoding string) float64 {
	t.Helper()
	w := newSink()
	app.ServeHTTP(w, req)
	if got := w.h.Get("Content-Encoding"); got != wantCoding || w.status != 200 {
		t.Fatalf("status %d, Content-Encoding %q, want %q", w.status, got, wantCoding)
	}
	return testing.AllocsPerRun(200, func() {
		w.reset()
		app.ServeHTTP(w, req)
	})
}

// TestAllocationBudgets holds the middleware to its allocation budgets per
// request (the handler itself allocates nothing): none when the client asks
// for no coding, none for a body below the minimum size, none for a pooled
// gzip or zstd response and none for br; none either when Accept-Encoding
// is merged into the Vary: Origin of CORS installed outside it.
func TestAllocationBudgets(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	big := text(4096, 21)
	small := text(200, 22)
	tests := []struct {
		name   string
		body   []byte
		ae     string
		coding string
		budget float64
		cors   bool // CORS outside the compressor: Vary merged
	}{
		{"no Accept-Encoding", big, "", "", 0, false},
		{"below min size", small, "gzip", "", 0, false},
		{"gzip", big, "gzip", "gzip", 0, false},
		{"br", big, "br", "br", 0, false},
		{"zstd", big, "zstd", "zstd", 0, false},
		{"gzip, Vary merged", big, "gzip", "gzip", 0, true},
		{"below min size, Vary merged", small, "gzip", "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := newApp(jsonHandler(tt.body), compress.Config{})
			if tt.cors {
				app = plinth.Bare()
				app.Use(middleware.CORS(middleware.CORSConfig{AllowedOrigins: []string{"https://app.example"}}), compress.New(compress.Config{}))
				app.Get("/x", jsonHandler(tt.body))
				if got := do(app, "GET", tt.ae).Header()["Vary"]; len(got) != 1 || got[0] != "Origin, Accept-Encoding" {
					t.Fatalf("Vary %q, want [\"Origin, Accept-Encoding\"]", got)
				}
			}
			req := httptest.NewRequest("GET", "/x", nil)
			if tt.ae != "" {
				req.Header.Set("Accept-Encoding", tt.ae)
			}
			got := allocsPerRequest(t, app, req, tt.coding)
			t.Logf("%s: %v allocations per request", tt.name, got)
			if got > tt.budget {
				t.Errorf("%s: %v allocations per request, budget %v", tt.name, got, tt.budget)
			}
		})
	}
}

func TestReadFromPassThroughKeepsSendfilePath(t *testing.T) {
	// Without a coding the wrapped writer's ReadFrom is used: the plinth
	// writer, and below it the recorder here (which has none, so io.Copy).
	body := text(100_000, 5)
	app := newApp(func(c *plinth.Ctx) error {
		c.Header().Set("Content-Type", "text/plain")
		n, err := c.Writer().(io.ReaderFrom).ReadFrom(bytes.NewReader(body))
		if n != int64(len(body)) {
			t.Errorf("ReadFrom copied %d", n)
		}
		return err
	}, compress.Config{})
	for _, ae := range []string{"-", "gzip"} {
		rec := do(app, "GET", ae)
		if got := decode(t, rec.Header().Get("Content-Encoding"), rec.Body.Bytes()); !bytes.Equal(got, body) {
			t.Errorf("%s: body differs", ae)
		}
	}
}

func TestUnwrapReachesTheServer(t *testing.T) {
	var unwrapped bool
	app := newApp(func(c *plinth.Ctx) error {
		u, ok := c.Writer().(interface{ Unwrap() http.ResponseWriter })
		unwrapped = ok && u.Unwrap() != nil
		// SetWriteDeadline is only reachable through Unwrap.
		if err := http.NewResponseController(c.Writer()).EnableFullDuplex(); err != nil && err != http.ErrNotSupported {
			return err
		}
		return c.Text(200, "ok")
	}, compress.Config{})
	srv := httptest.NewServer(app)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/x")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if !unwrapped {
		t.Error("the compress writer has no Unwrap")
	}
}

func TestWriteAfterFlushOnSmallBody(t *testing.T) {
	// A flush before the minimum size starts the stream compressed (the
	// handler is streaming); the rest follows through the encoder.
	app := newApp(func(c *plinth.Ctx) error {
		c.Header().Set("Content-Type", "text/plain")
		io.WriteString(c.Writer(), "a")
		c.Writer().(http.Flusher).Flush()
		io.WriteString(c.Writer(), strings.Repeat("b", 10))
		return nil
	}, compress.Config{})
	rec := do(app, "GET", "zstd")
	if rec.Header().Get("Content-Encoding") != "zstd" || !rec.Flushed {
		t.Fatalf("Content-Encoding %q, flushed %v", rec.Header().Get("Content-Encoding"), rec.Flushed)
	}
	if got := decode(t, "zstd", rec.Body.Bytes()); string(got) != "a"+strings.Repeat("b", 10) {
		t.Errorf("body %q", got)
	}
	// Without a coding the flush just sends what there is.
	rec = do(app, "GET", "-")
	if rec.Body.String() != "a"+strings.Repeat("b", 10) || !rec.Flushed {
		t.Errorf("body %q, flushed %v", rec.Body.String(), rec.Flushed)
	}
}

func TestHandlerWritesNothing(t *testing.T) {
	app := newApp(func(c *plinth.Ctx) error {
		c.Header().Set("X-Only", "header")
		return nil
	}, compress.Config{})
	rec := do(app, "GET", "gzip")
	if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Encoding") != "" || rec.Header().Get("X-Only") != "header" {
		t.Errorf("status %d, %d bytes, Content-Encoding %q", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Encoding"))
	}
	_ = compress.Gzip
}

// TestRandomHandlers drives the writer with random sequences of header
// settings, WriteHeader, Write, WriteString, ReadFrom and Flush, under
// random Accept-Encoding values and options, and checks that whatever
// was written comes out, decoded, byte for byte, with the status written.
func TestRandomHandlers(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	aes := []string{"-", "gzip", "br", "zstd", "identity", "*", "gzip;q=0", "br, identity;q=0", "zstd;q=0.5, gzip", "bogus;;q=x"}
	types := []string{"", "text/plain", "application/json", "image/png", "application/problem+json; charset=utf-8"}
	statuses := []int{0, 200, 201, 204, 304, 404, 500}
	for i := range 400 {
		ae := aes[rng.IntN(len(aes))]
		ct := types[rng.IntN(len(types))]
		status := statuses[rng.IntN(len(statuses))]
		minSize := []int{0, 1, 100, 1024, 5000}[rng.IntN(5)]
		withCL := rng.IntN(4) == 0
		var ops []int // op code, size
		n := rng.IntN(8)
		total := 0
		for range n {
			op, size := rng.IntN(4), rng.IntN(3000)
			ops = append(ops, op, size)
			if op != 3 {
				total += size
			}
		}
		var written bytes.Buffer
		h := func(c *plinth.Ctx) error {
			w := c.Writer()
			if ct != "" {
				w.Header().Set("Content-Type", ct)
			}
			if withCL {
				w.Header().Set("Content-Length", strconv.Itoa(total))
			}
			if status != 0 {
				w.WriteHeader(status)
			}
			for j := 0; j < len(ops); j += 2 {
				chunk := text(ops[j+1], uint64(i*100+j))
				switch ops[j] {
				case 0:
					w.Write(chunk)
					written.Write(chunk)
				case 1:
					// Called directly: io.WriteString would fall back to
					// Write if the writer lost its WriteString.
					w.(io.StringWriter).WriteString(string(chunk))
					written.Write(chunk)
				case 2:
					io.Copy(w, bytes.NewReader(chunk))
					written.Write(chunk)
				case 3:
					w.(http.Flusher).Flush()
				}
			}
			return nil
		}
		rec := do(newApp(h, compress.Config{MinSize: minSize}), "GET", ae)
		want := status
		if want == 0 {
			want = 200
		}
		if rec.Code != want {
			t.Fatalf("case %d (%q, %q, %d): status %d, want %d", i, ae, ct, status, rec.Code, want)
		}
		got := decode(t, rec.Header().Get("Content-Encoding"), rec.Body.Bytes())
		if !bytes.Equal(got, written.Bytes()) {
			t.Fatalf("case %d (%q, %q, status %d, min %d, ops %v): body %d bytes, want %d",
				i, ae, ct, status, minSize, ops, len(got), written.Len())
		}
		if rec.Header().Get("Content-Encoding") != "" && rec.Header().Get("Content-Length") != "" {
			t.Fatalf("case %d: compressed with Content-Length", i)
		}
	}
}
