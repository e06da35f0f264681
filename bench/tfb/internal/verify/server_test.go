package verify

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"html/template"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"
)

// store is the data behind the test server: an in-memory table or
// PostgreSQL (pg_test.go).
type store interface {
	worlds(ctx context.Context, ids []int) ([]world, error)
	update(ctx context.Context, ws []world) error
	fortunes(ctx context.Context) ([]Fortune, error)
}

// fakeServer is a TFB implementation whose faults can be switched on one at
// a time, to see each check catch its fault.
type fakeServer struct {
	store store

	contentType  map[string]string // overrides by path
	noServer     bool              // omit the Server header
	gzip         bool              // compress when the client accepts gzip
	noClamp      bool              // use the parameter as given (0 -> 0, 501 -> 501)
	unsorted     bool              // fortunes in table order
	unescaped    bool              // fortunes through text, not html, templates
	staticDate   bool              // Date never changes
	noPersist    bool              // updates return new numbers without storing them
	noAdditional bool              // fortunes without the id 0 row

	cacheOnce sync.Once
	cache     map[int]world
}

var fortunesPage = template.Must(template.New("f").Parse(`<!DOCTYPE html>
<html><head><title>Fortunes</title></head><body><table>
<tr><th>id</th><th>message</th></tr>
{{range .}}<tr><td>{{.ID}}</td><td>{{.Message}}</td></tr>
{{end}}</table></body></html>`))

func (s *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var (
		body []byte
		ct   string
		err  error
	)
	ctx := r.Context()
	switch r.URL.Path {
	case "/json":
		body, _ = json.Marshal(map[string]string{"message": "Hello, World!"})
		ct = "application/json"
	case "/plaintext":
		body, ct = []byte("Hello, World!"), "text/plain"
	case "/db":
		var ws []world
		ws, err = s.store.worlds(ctx, []int{randomID()})
		if err == nil {
			body, _ = json.Marshal(worldJSON(ws[0]))
		}
		ct = "application/json"
	case "/queries", "/updates", "/cached-queries":
		param := "queries"
		if r.URL.Path == "/cached-queries" {
			param = "count"
		}
		n := s.count(r.URL.Query().Get(param))
		ids := make([]int, n)
		for i := range ids {
			ids[i] = randomID()
		}
		var ws []world
		switch r.URL.Path {
		case "/cached-queries":
			ws = s.cached(ctx, ids)
		case "/queries":
			ws, err = s.store.worlds(ctx, ids)
		case "/updates":
			ws, err = s.store.worlds(ctx, ids)
			if err == nil {
				for i := range ws {
					ws[i].RandomNumber = randomID()
				}
				if !s.noPersist {
					err = s.store.update(ctx, ws)
				}
			}
		}
		out := make([]map[string]int, len(ws))
		for i, w := range ws {
			out[i] = worldJSON(w)
		}
		body, _ = json.Marshal(out)
		ct = "application/json"
	case "/fortunes":
		var rows []Fortune
		rows, err = s.store.fortunes(ctx)
		if !s.noAdditional {
			rows = append(rows, additionalFortune)
		}
		if !s.unsorted {
			sort.Slice(rows, func(i, j int) bool { return rows[i].Message < rows[j].Message })
		}
		var buf bytes.Buffer
		if s.unescaped {
			buf.WriteString("<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>")
			for _, f := range rows {
				buf.WriteString("<tr><td>" + strconv.Itoa(f.ID) + "</td><td>" + f.Message + "</td></tr>")
			}
			buf.WriteString("</table></body></html>")
		} else if err == nil {
			err = fortunesPage.Execute(&buf, rows)
		}
		body, ct = buf.Bytes(), "text/html; charset=utf-8"
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if c, ok := s.contentType[r.URL.Path]; ok {
		ct = c
	}
	h := w.Header()
	if !s.noServer {
		h.Set("Server", "fake")
	}
	if s.staticDate {
		h.Set("Date", "Mon, 02 Jan 2006 15:04:05 GMT")
	} else {
		h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	h.Set("Content-Type", ct)
	if s.gzip && r.Header.Get("Accept-Encoding") != "" {
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		zw.Write(body)
		zw.Close()
		body = zb.Bytes()
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

// count applies TFB's clamping, unless noClamp.
func (s *fakeServer) count(v string) int {
	n, err := strconv.Atoi(v)
	if s.noClamp {
		if err != nil {
			return 1
		}
		return n
	}
	switch {
	case err != nil || n < 1:
		return 1
	case n > 500:
		return 500
	}
	return n
}

// cached serves cached-queries from a copy of the whole table taken once.
func (s *fakeServer) cached(ctx context.Context, ids []int) []world {
	s.cacheOnce.Do(func() {
		all := make([]int, 10000)
		for i := range all {
			all[i] = i + 1
		}
		ws, _ := s.store.worlds(ctx, all)
		s.cache = make(map[int]world, len(ws))
		for _, w := range ws {
			s.cache[w.ID] = w
		}
	})
	out := make([]world, len(ids))
	for i, id := range ids {
		out[i] = s.cache[id]
	}
	return out
}

func worldJSON(w world) map[string]int {
	return map[string]int{"id": w.ID, "randomNumber": w.RandomNumber}
}

func randomID() int { return rand.IntN(10000) + 1 }

// memStore is an in-memory world and fortune table.
type memStore struct {
	mu      sync.Mutex
	rows    map[int]int
	fortune []Fortune
}

func newMemStore(t *testing.T) *memStore {
	m := &memStore{rows: make(map[int]int, 10000), fortune: testFortunes(t)}
	for id := 1; id <= 10000; id++ {
		m.rows[id] = randomID()
	}
	return m
}

func (m *memStore) worlds(_ context.Context, ids []int) ([]world, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]world, len(ids))
	for i, id := range ids {
		out[i] = world{ID: id, RandomNumber: m.rows[id]}
	}
	return out, nil
}

func (m *memStore) update(_ context.Context, ws []world) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range ws {
		m.rows[w.ID] = w.RandomNumber
	}
	return nil
}

func (m *memStore) fortunes(context.Context) ([]Fortune, error) {
	return append([]Fortune(nil), m.fortune...), nil
}

// testFortunes reads the module's copy of the fortune table.
func testFortunes(t *testing.T) []Fortune {
	t.Helper()
	f, err := os.Open("../../testdata/fortunes.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := ParseFortunes(f)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// serve starts s and returns its URL.
func serve(t *testing.T, s *fakeServer) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}
