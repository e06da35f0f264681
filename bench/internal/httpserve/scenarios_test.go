package httpserve

import (
	"net"
	"net/http"
	"strings"
	"testing"
)

// Every scenario cmd/instr serves answers its requests over real HTTP, sent
// one at a time, pipelined and paced; headers-N carries its N header lines.
func TestScenariosOverHTTP(t *testing.T) {
	t.Chdir("../..") // bench/, where the GitHub route table is found
	pairs := [][2]string{{"plinth", "validated-json"}, {"plinth-new", "validated-json"}, {"plinth", "github-all"},
		{"std", "headers-0"}, {"std", "headers-4"}, {"std", "headers-10"}}
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
	for n, want := range map[int]int{0: 0, 4: 4, 10: 10} {
		w := &recorder{header: http.Header{}}
		headersHandler(n).ServeHTTP(w, nil)
		if got := len(w.header) - 1; got != want || w.header.Get("Content-Type") == "" {
			t.Errorf("headers-%d: %d header lines besides Content-Type: %v", n, got, w.header)
		}
		if n == 10 && !strings.Contains(w.header.Get("Content-Security-Policy"), "upgrade-insecure-requests") {
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
