package engine

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestValidValue checks the word-at-a-time value check against the byte
// rule: every byte value at every position of values of 0 to 40 bytes, and
// random values made of the bytes where the rule changes.
func TestValidValue(t *testing.T) {
	byByte := func(v []byte) bool {
		for _, c := range v {
			if !validValueByte(c) {
				return false
			}
		}
		return true
	}
	for n := 0; n <= 40; n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				v := []byte(strings.Repeat("a", n))
				v[pos] = byte(c)
				if got, want := validValue(v), byByte(v); got != want {
					t.Fatalf("validValue(%q) = %v, want %v", v, got, want)
				}
			}
		}
	}
	edges := []byte{0x00, 0x08, '\t', 0x0a, 0x1f, ' ', '!', 0x7e, 0x7f, 0x80, 0xfe, 0xff}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		v := make([]byte, r.IntN(33))
		for i := range v {
			v[i] = edges[r.IntN(len(edges))]
		}
		if got, want := validValue(v), byByte(v); got != want {
			t.Fatalf("validValue(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestHeadScanNotesLines checks that the spans headEnd notes are the lines
// parseHead would find by scanning, past the noted ones too.
func TestHeadScanNotesLines(t *testing.T) {
	for _, n := range []int{0, 1, 23, 24, 25, 60} {
		var b strings.Builder
		b.WriteString("GET /p?q=1 HTTP/1.1\r\nHost: h\r\n")
		for i := range n {
			b.WriteString("X-F" + itoa(i) + ":  v" + itoa(i) + " \t\r\n")
		}
		b.WriteString("\r\n")
		raw := b.String()
		eng, perr := engineOutcome([]byte(raw))
		if perr != nil {
			t.Fatalf("%d lines: refused: %v", n, perr)
		}
		if eng.req.Method != "GET" || eng.req.RequestURI != "/p?q=1" || eng.req.Host != "h" || eng.req.URL.RawQuery != "q=1" {
			t.Fatalf("%d lines: request line read as %q %q host %q", n, eng.req.Method, eng.req.RequestURI, eng.req.Host)
		}
		if len(eng.req.Header) != n {
			t.Fatalf("%d lines: %d fields", n, len(eng.req.Header))
		}
		for i := range n {
			if got := eng.req.Header["X-F"+itoa(i)]; len(got) != 1 || got[0] != "v"+itoa(i) {
				t.Fatalf("%d lines: X-F%d = %q", n, i, got)
			}
		}
		if d := compareHead([]byte(raw)); d != "" {
			t.Fatalf("%d lines: differs from net/http: %s", n, d)
		}
	}
}

// TestResponseResetFields sets every field of a response, resets it, and
// checks each is as a new request needs it: a field added to response and
// not handled by reset fails here.
func TestResponseResetFields(t *testing.T) {
	keep := map[string]bool{"c": true, "hdr": true, "blockLens": true, "lensFor": true}
	emptied := map[string]bool{"buf": true, "kvs": true, "trailers": true}
	req := new(http.Request)
	w := &response{c: new(conn), hdr: http.Header{"A": {"b"}}}
	v := reflect.ValueOf(w).Elem()
	typ := v.Type()
	for i := range typ.NumField() {
		f := v.Field(i)
		name := typ.Field(i).Name
		if name == "c" || name == "hdr" {
			continue
		}
		f = reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem()
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(7)
		case reflect.Uint64:
			f.SetUint(7)
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 4))
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		default:
			t.Fatalf("field %s: kind %s not handled by this test", name, f.Kind())
		}
	}
	before := *w
	w.reset(req)
	if len(w.hdr) != 0 {
		t.Fatalf("header not emptied: %v", w.hdr)
	}
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		f := reflect.NewAt(v.Field(i).Type(), v.Field(i).Addr().UnsafePointer()).Elem()
		b := reflect.ValueOf(&before).Elem().Field(i)
		b = reflect.NewAt(b.Type(), b.Addr().UnsafePointer()).Elem()
		switch {
		case name == "req":
			if w.req != req {
				t.Errorf("req not set")
			}
		case name == "contentLength":
			if w.contentLength != -1 {
				t.Errorf("contentLength = %d, want -1", w.contentLength)
			}
		case keep[name]:
			if !reflect.DeepEqual(f.Interface(), b.Interface()) {
				t.Errorf("%s changed by reset", name)
			}
		case emptied[name]:
			if f.Len() != 0 || f.Cap() != b.Cap() {
				t.Errorf("%s: len %d cap %d, want 0 and the array kept (cap %d)", name, f.Len(), f.Cap(), b.Cap())
			}
		default:
			if !f.IsZero() {
				t.Errorf("%s not reset: %v", name, f.Interface())
			}
		}
	}
}

// TestPipelinedHeadsShareCopy: pipelined heads sliced from one copy
// (headString) read as their own bytes, also when a body between them
// holds the very bytes of the next head, and header values a handler keeps
// stay what they were (the copy is never written).
func TestPipelinedHeadsShareCopy(t *testing.T) {
	var mu sync.Mutex
	var kept []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		kept = append(kept, r.Header.Get("X-N")) // a string: keeping it is allowed
		mu.Unlock()
		fmt.Fprintf(w, "%s %s n=%s body=%q", r.Method, r.URL.Path, r.Header.Get("X-N"), b)
	})
	_, addr := start(t, h)
	next := "GET /4 HTTP/1.1\r\nHost: x\r\nX-N: 4\r\n\r\n"
	raw := "GET /1 HTTP/1.1\r\nHost: x\r\nX-N: 1\r\n\r\n" +
		"GET /2 HTTP/1.1\r\nHost: x\r\nX-N: 2\r\n\r\n" +
		"POST /3 HTTP/1.1\r\nHost: x\r\nX-N: 3\r\nContent-Length: " + strconv.Itoa(len(next)) + "\r\n\r\n" + next +
		next +
		"GET /5 HTTP/1.1\r\nHost: x\r\nX-N: 5\r\nConnection: close\r\n\r\n"
	rs := converse(t, addr, raw, 5)
	want := []string{
		`GET /1 n=1 body=""`,
		`GET /2 n=2 body=""`,
		`POST /3 n=3 body="GET /4 HTTP/1.1\r\nHost: x\r\nX-N: 4\r\n\r\n"`,
		`GET /4 n=4 body=""`,
		`GET /5 n=5 body=""`,
	}
	if len(rs) != len(want) {
		t.Fatalf("got %d responses, want %d", len(rs), len(want))
	}
	for i, r := range rs {
		if got := bodyOf(r); got != want[i] {
			t.Errorf("response %d: %q, want %q", i, got, want[i])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(kept, ","); got != "1,2,3,4,5" {
		t.Errorf("kept header values read %q after the batch, want 1,2,3,4,5", got)
	}
}
