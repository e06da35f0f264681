// Package gostd is the go-std peer of the TechEmpower benchmark, in the
// style of TFB's go-std: a plain net/http ServeMux, encoding/json and the
// shared pgx Store. peers/go-std is its main.
package gostd

import (
	"encoding/json"
	"net/http"

	"github.com/plinth-go/plinth/bench/tfb/internal/tfb"
)

// Response header values, shared by every response.
var (
	serverHeader = []string{"Go"}
	jsonType     = []string{"application/json"}
	textType     = []string{"text/plain; charset=utf-8"}
	htmlType     = []string{"text/html; charset=utf-8"}
)

// New returns the ServeMux serving the TFB endpoints from s.
func New(s tfb.Setup) http.Handler {
	h := &handlers{store: s.Store, cache: s.Cache}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /json", h.json)
	mux.HandleFunc("GET /db", h.db)
	mux.HandleFunc("GET /queries", h.queries)
	mux.HandleFunc("GET /fortunes", h.fortunes)
	mux.HandleFunc("GET /updates", h.updates)
	mux.HandleFunc("GET /plaintext", h.plaintext)
	mux.HandleFunc("GET /cached-queries", h.cachedQueries)
	return mux
}

// handlers holds what the handlers read.
type handlers struct {
	store tfb.Store
	cache *tfb.Cache
}

// message is the json test's object.
type message struct {
	Message string `json:"message"`
}

// writeJSON encodes v and sends it with the Server and Content-Type headers.
func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd["Server"] = serverHeader
	hd["Content-Type"] = jsonType
	w.Write(b)
}

// fail sends a 500 for a database error.
func fail(w http.ResponseWriter, err error) {
	w.Header()["Server"] = serverHeader
	http.Error(w, err.Error(), http.StatusInternalServerError)
}

func (h *handlers) json(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, &message{Message: "Hello, World!"})
}

func (h *handlers) plaintext(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd["Server"] = serverHeader
	hd["Content-Type"] = textType
	w.Write([]byte("Hello, World!"))
}

func (h *handlers) db(w http.ResponseWriter, r *http.Request) {
	var ws [1]tfb.World
	if err := h.store.Worlds(r.Context(), ws[:]); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, &ws[0])
}

func (h *handlers) queries(w http.ResponseWriter, r *http.Request) {
	ws := make([]tfb.World, tfb.QueryCount(r.URL.Query().Get("queries")))
	if err := h.store.Worlds(r.Context(), ws); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, ws)
}

func (h *handlers) updates(w http.ResponseWriter, r *http.Request) {
	ws := make([]tfb.World, tfb.QueryCount(r.URL.Query().Get("queries")))
	if err := h.store.UpdateWorlds(r.Context(), ws); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, ws)
}

func (h *handlers) cachedQueries(w http.ResponseWriter, r *http.Request) {
	ws := make([]tfb.World, tfb.QueryCount(r.URL.Query().Get("count")))
	h.cache.Fill(ws)
	writeJSON(w, ws)
}

func (h *handlers) fortunes(w http.ResponseWriter, r *http.Request) {
	rows, err := h.store.Fortunes(r.Context(), make([]tfb.Fortune, 0, 16))
	if err != nil {
		fail(w, err)
		return
	}
	page, err := tfb.NewFortunesPage(rows)
	if err != nil {
		fail(w, err)
		return
	}
	defer page.Release()
	hd := w.Header()
	hd["Server"] = serverHeader
	hd["Content-Type"] = htmlType
	w.Write(page.Bytes())
}
