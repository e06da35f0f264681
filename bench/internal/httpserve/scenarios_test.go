package httpserve

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
)

// Every scenario cmd/instr serves answers its requests over real HTTP, sent
// one at a time, pipelined and paced; headers-N carries its N header lines.
func TestScenariosOverHTTP(t *testing.T) {
	t.Chdir("../..") // bench/, where the GitHub route table is found
	pairs := [][2]string{{"plinth", "validated-json"}, {"plinth-new", "validated-json"}, {"plinth", "github-all"},
		{"std", "headers-0"}, {"std", "headers-4"}, {"std", "headers-10"}, {"std", HeadersDefault}, {"plinth", ModuleRoute}, {"plinth-new", ModuleRoute}}
	for _, p := range pairs {
		h, err := HandlerNamed(p[0], p[1])
		if err != nil {
			t.Fatal(err)
		}
		reqs, err := Requests(p[1])
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: h}
		go srv.Serve(ln)
		c, err := Dial(ln.Addr().String(), reqs, 2)
		if err != nil {
			t.Fatal(err)
		}
		waits := 0
		for _, send := range []func(int) error{c.Send, func(n int) error { return c.SendPipelined(n, 8) },
			func(n int) error { return c.SendPaced(n, func() error { waits++; return nil }) }} {
			if err := send(2 * len(reqs)); err != nil {
				t.Errorf("%s on %s: %v", p[0], p[1], err)
			}
		}
		if waits != 2*len(reqs) {
			t.Errorf("%s on %s: SendPaced waited %d times for %d requests", p[0], p[1], waits, 2*len(reqs))
		}
		c.Close()
		srv.Close()
	}
	for sc, want := range map[string]int{"headers-0": 0, "headers-4": 4, "headers-10": 10, HeadersDefault: 5} {
		w := &recorder{header: http.Header{}}
		headersHandler(sc).ServeHTTP(w, nil)
		if got := len(w.header) - 1; got != want || w.header.Get("Content-Type") == "" {
			t.Errorf("%s: %d header lines besides Content-Type: %v", sc, got, w.header)
		}
		if n, ok := HeaderLineCount(sc); !ok || n != want {
			t.Errorf("HeaderLineCount(%q) = %d, %v", sc, n, ok)
		}
		if sc == "headers-10" && !strings.Contains(w.header.Get("Content-Security-Policy"), "upgrade-insecure-requests") {
			t.Errorf("headers-10: not helmet's CSP: %q", w.header.Get("Content-Security-Policy"))
		}
	}
}

func TestUnknownScenarios(t *testing.T) {
	for _, p := range [][2]string{{"plinth", "headers-4"}, {"std", "headers-11"}, {"std", "headers-04"}, {"std", "validated-json"}, {"std", "nope"}} {
		if _, err := HandlerNamed(p[0], p[1]); err == nil {
			t.Errorf("%s on %s: no error", p[0], p[1])
		}
	}
	for _, sc := range []string{"headers-11", "headers-", "nope"} {
		if KnownScenario(sc) {
			t.Errorf("KnownScenario(%q)", sc)
		}
	}
	for _, sc := range append([]string{"minimal", "github-all"}, ExtraScenarios...) {
		if !KnownScenario(sc) {
			t.Errorf("!KnownScenario(%q)", sc)
		}
	}
}

type recorder struct{ header http.Header }

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *recorder) WriteHeader(int)             {}

// DefaultLayerLines are what plinth.New() adds to a text response over plain
// HTTP: the same names, the same values (the request ID's length).
func TestDefaultLayerLinesMatchNew(t *testing.T) {
	app := plinth.New()
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(http.StatusOK, "Hello, World!") })
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	got := rec.Header().Clone()
	got.Del("Content-Type")
	if len(got) != len(DefaultLayerLines) {
		t.Fatalf("plinth.New() adds %d lines, DefaultLayerLines has %d: %v", len(got), len(DefaultLayerLines), got)
	}
	for _, kv := range DefaultLayerLines {
		v := got.Get(kv[0])
		if kv[0] == "X-Request-Id" {
			if len(v) != len(kv[1]) {
				t.Errorf("X-Request-Id %q: %d characters, DefaultLayerLines has %d", v, len(v), len(kv[1]))
			}
		} else if v != kv[1] {
			t.Errorf("%s: plinth.New() sends %q, DefaultLayerLines has %q", kv[0], v, kv[1])
		}
	}
}
