package suite

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// The middleware scenarios' stack, the same in every framework: a request ID
// echoed in RequestIDHeader, the four headers of SecurityHeaderSet and a
// context deadline of HandlerTimeout around the handler.

// RequestIDHeader carries the request ID on the response.
const RequestIDHeader = "X-Request-Id"

// HandlerTimeout is the middleware scenarios' handler deadline.
const HandlerTimeout = 30 * time.Second

// SecurityHeaderSet returns the four security headers of the middleware
// scenarios (a new map each call: callers may keep it).
func SecurityHeaderSet() map[string]string {
	return map[string]string{
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "SAMEORIGIN",
		"Referrer-Policy":         "no-referrer",
		"Content-Security-Policy": "default-src 'self'",
	}
}

// securedHeaders is what a middleware scenario's response must carry.
func securedHeaders() map[string]string {
	h := SecurityHeaderSet()
	h[RequestIDHeader] = AnyValue
	return h
}

// stdSecured is the middleware stack hand-written for net/http, as three
// wrappers in their fastest plain form (std and httprouter use it).
func stdSecured(h http.Handler) http.Handler {
	return stdRequestID(stdSecurityHeaders(stdTimeout(h)))
}

// stdRequestID keeps a sane incoming X-Request-Id or makes one (a random
// process prefix and a counter), echoes it on the response and puts it in the
// request's context.
func stdRequestID(next http.Handler) http.Handler {
	ids := newIDSource()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(RequestIDHeader)
		if id == "" || len(id) > 64 {
			id = ids.next()
		}
		w.Header()[RequestIDHeader] = []string{id}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

type requestIDKey struct{}

// idSource makes request IDs: 16 hex digits drawn at start, a dash, a counter.
type idSource struct {
	prefix string
	n      atomic.Uint64
}

func newIDSource() *idSource {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &idSource{prefix: hex.EncodeToString(b[:]) + "-"}
}

func (s *idSource) next() string {
	var buf [40]byte
	b := append(buf[:0], s.prefix...)
	return string(strconv.AppendUint(b, s.n.Add(1), 10))
}

// stdSecurityHeaders sets the four headers from slices made once.
func stdSecurityHeaders(next http.Handler) http.Handler {
	type kv struct {
		k string
		v []string
	}
	var set []kv
	for k, v := range SecurityHeaderSet() {
		set = append(set, kv{http.CanonicalHeaderKey(k), []string{v}})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for _, e := range set {
			h[e.k] = e.v
		}
		next.ServeHTTP(w, r)
	})
}

// stdTimeout gives the handler a context that ends after HandlerTimeout.
func stdTimeout(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), HandlerTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
