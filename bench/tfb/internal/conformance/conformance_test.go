package conformance

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plinth-go/plinth/bench/tfb/internal/fibertfb"
	"github.com/plinth-go/plinth/bench/tfb/internal/gintfb"
	"github.com/plinth-go/plinth/bench/tfb/internal/gostd"
	"github.com/plinth-go/plinth/bench/tfb/internal/plinthtfb"
	"github.com/plinth-go/plinth/bench/tfb/internal/tfb"
)

// world is a World object as the endpoints send it.
type world struct {
	ID           int `json:"id"`
	RandomNumber int `json:"randomNumber"`
}

// server is one implementation under test.
type server struct {
	name, serverHeader string
	start              func(t *testing.T) string // returns the base URL
}

func TestImplementations(t *testing.T) {
	dbURL := tempDatabase(t)
	ctx := context.Background()
	pool, err := tfb.OpenPoolURL(ctx, dbURL, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	setup, err := tfb.NewPoolSetup(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	servers := []server{
		{"plinth", "Plinth", func(t *testing.T) string {
			t.Setenv("DATABASE_URL", dbURL)
			s, closeDB, err := plinthtfb.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(closeDB)
			return serveHTTP(t, plinthtfb.New(s))
		}},
		{"plinth-per-worker", "Plinth", func(t *testing.T) string {
			t.Setenv("DATABASE_URL", dbURL)
			t.Setenv(plinthtfb.PoolModeVar, "per-worker")
			s, closeDB, err := plinthtfb.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(closeDB)
			return serveHTTP(t, plinthtfb.New(s))
		}},
		{"go-std", "Go", func(t *testing.T) string { return serveHTTP(t, gostd.New(setup)) }},
		{"gin", "Gin", func(t *testing.T) string { return serveHTTP(t, gintfb.New(setup)) }},
		{"fiber", "Fiber", func(t *testing.T) string {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			app := fibertfb.New(setup)
			go app.Listener(ln)
			t.Cleanup(func() { app.Shutdown() })
			return "http://" + ln.Addr().String()
		}},
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			base := s.start(t)
			checkAll(t, base, s.serverHeader, pool)
		})
	}
}

// serveHTTP serves h on a test server and returns its URL.
func serveHTTP(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// get fetches base+path and checks the headers every TFB response needs.
func get(t *testing.T, base, path, server, contentType string) []byte {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", path, resp.Status, body)
	}
	if got := resp.Header.Get("Server"); got != server {
		t.Errorf("GET %s: Server %q, want %q", path, got, server)
	}
	if _, err := http.ParseTime(resp.Header.Get("Date")); err != nil {
		t.Errorf("GET %s: Date %q: %v", path, resp.Header.Get("Date"), err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != contentType && !strings.HasPrefix(ct, contentType+";") {
		t.Errorf("GET %s: Content-Type %q, want %q", path, ct, contentType)
	}
	if contentType == "text/html" && resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("GET %s: Content-Type %q, want text/html; charset=utf-8", path, resp.Header.Get("Content-Type"))
	}
	if resp.ContentLength < 0 && len(resp.TransferEncoding) == 0 {
		t.Errorf("GET %s: neither Content-Length nor Transfer-Encoding", path)
	}
	return body
}

// checkAll checks every endpoint of the server at base.
func checkAll(t *testing.T, base, server string, pool *pgxpool.Pool) {
	if body := strings.TrimSpace(string(get(t, base, "/json", server, "application/json"))); body != `{"message":"Hello, World!"}` {
		t.Errorf("/json: %s", body)
	}
	if body := string(get(t, base, "/plaintext", server, "text/plain")); body != "Hello, World!" {
		t.Errorf("/plaintext: %q", body)
	}
	var w world
	if err := json.Unmarshal(get(t, base, "/db", server, "application/json"), &w); err != nil {
		t.Fatalf("/db: %v", err)
	}
	checkWorld(t, "/db", w)

	clamp := map[string]int{"2": 2, "0": 1, "foo": 1, "501": 500, "": 1, "missing": 1}
	for _, ep := range []struct{ path, param string }{
		{"/queries", "queries"}, {"/updates", "queries"}, {"/cached-queries", "count"},
	} {
		for v, want := range clamp {
			path := ep.path + "?" + ep.param + "=" + v
			if v == "missing" {
				path = ep.path
			}
			var ws []world
			if err := json.Unmarshal(get(t, base, path, server, "application/json"), &ws); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if len(ws) != want {
				t.Errorf("%s: %d rows, want %d", path, len(ws), want)
			}
			for _, w := range ws {
				checkWorld(t, path, w)
			}
		}
	}
	checkUpdatesPersist(t, base, server, pool)
	checkFortunes(t, base, server)
}

// checkWorld checks the ranges of a World object.
func checkWorld(t *testing.T, what string, w world) {
	t.Helper()
	if w.ID < 1 || w.ID > 10000 || w.RandomNumber < 1 || w.RandomNumber > 10000 {
		t.Errorf("%s: %+v out of range", what, w)
	}
}

// checkUpdatesPersist checks that what /updates reports is what the table
// holds afterwards.
func checkUpdatesPersist(t *testing.T, base, server string, pool *pgxpool.Pool) {
	var ws []world
	if err := json.Unmarshal(get(t, base, "/updates?queries=20", server, "application/json"), &ws); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, w := range ws {
		var n int
		if err := pool.QueryRow(ctx, "SELECT randomnumber FROM world WHERE id = $1", w.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != w.RandomNumber {
			t.Errorf("/updates reported %+v, the table holds %d", w, n)
		}
	}
}

var fortuneRowRE = regexp.MustCompile(`<tr><td>(\d+)</td><td>(.*?)</td></tr>`)

// checkFortunes checks the fortunes page: its frame, its 13 rows in byte
// order of the message, and the escaping.
func checkFortunes(t *testing.T, base, server string) {
	body := string(get(t, base, "/fortunes", server, "text/html"))
	const head = `<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>`
	if !strings.HasPrefix(body, head) || !strings.HasSuffix(body, `</table></body></html>`) {
		t.Fatalf("/fortunes frame: %s", body)
	}
	if strings.Contains(body, "<script>") {
		t.Error("/fortunes: <script> not escaped")
	}
	var msgs []string
	want := map[string]bool{"Additional fortune added at request time.": true}
	for _, f := range fortunes(t) {
		want[f.Message] = true
	}
	for _, m := range fortuneRowRE.FindAllStringSubmatch(body, -1) {
		msg := html.UnescapeString(m[2])
		if !want[msg] {
			t.Errorf("/fortunes: unexpected row %q", msg)
		}
		msgs = append(msgs, msg)
	}
	if len(msgs) != len(want) {
		t.Errorf("/fortunes: %d rows, want %d", len(msgs), len(want))
	}
	if !slices.IsSorted(msgs) {
		t.Errorf("/fortunes: not sorted by message: %q", msgs)
	}
}
