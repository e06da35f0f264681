package compress

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func decodeWith(t *testing.T, coding string, b []byte) []byte {
	t.Helper()
	var r io.Reader
	switch coding {
	case Gzip:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case Brotli:
		r = brotli.NewReader(bytes.NewReader(b))
	case Zstd:
		zr, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", coding, err)
	}
	return out
}

// TestPooledEncoderIsReset checks that an encoder taken from the pool again
// starts a fresh stream: no state from the previous response leaks into the
// next.
func TestPooledEncoderIsReset(t *testing.T) {
	for _, name := range []string{Brotli, Zstd, Gzip} {
		cd, err := newCoder(name, defaultLevel(name))
		if err != nil {
			t.Fatal(err)
		}
		bodies := [][]byte{bytes.Repeat([]byte("first response "), 300), bytes.Repeat([]byte("second "), 500), {}}
		var last encoder
		for i, body := range bodies {
			var out bytes.Buffer
			e := cd.get(&out)
			if i > 0 && e != last {
				t.Logf("%s: the pool gave a new encoder (allowed, just not exercised)", name)
			}
			if _, err := e.Write(body); err != nil {
				t.Fatal(err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			cd.put(e)
			last = e
			if got := decodeWith(t, name, out.Bytes()); !bytes.Equal(got, body) {
				t.Fatalf("%s response %d: decoded %d bytes, want %d", name, i, len(got), len(body))
			}
		}
	}
}

func TestCheckLevel(t *testing.T) {
	good := map[string][]int{Gzip: {1, 5, 9}, Brotli: {0, 4, 11}, Zstd: {1, 3, 22}}
	bad := map[string][]int{Gzip: {-3, -1, 0, 10}, Brotli: {-1, 12}, Zstd: {0, -1, 23}, "deflate": {1}}
	for name, levels := range good {
		for _, l := range levels {
			if err := checkLevel(name, l); err != nil {
				t.Errorf("checkLevel(%s, %d): %v", name, l, err)
			}
		}
	}
	for name, levels := range bad {
		for _, l := range levels {
			if err := checkLevel(name, l); err == nil {
				t.Errorf("checkLevel(%s, %d) accepted", name, l)
			}
		}
	}
}

func TestAllowedMediaTypes(t *testing.T) {
	m, err := build(Config{})
	if err != nil {
		t.Fatal(err)
	}
	yes := []string{"text/html", "text/plain; charset=utf-8", "Text/HTML", "application/json", "APPLICATION/JSON;charset=UTF-8",
		"application/problem+json", "application/ld+json", "application/rss+xml", "image/svg+xml", " text/css ", "application/x-ndjson"}
	no := []string{"", "text", "/", "text/", "image/png", "application/octet-stream", "application/json5", "application/jsonx",
		"video/mp4", "application/+json", "font/woff2", "multipart/form-data; boundary=x"}
	for _, ct := range yes {
		if !m.allowed(ct) {
			t.Errorf("%q not allowed", ct)
		}
	}
	for _, ct := range no {
		if m.allowed(ct) {
			t.Errorf("%q allowed", ct)
		}
	}
	if n := testing.AllocsPerRun(100, func() { m.allowed("application/problem+json; charset=utf-8") }); n != 0 {
		t.Errorf("allowed allocates %v times", n)
	}
}

func TestParseMediaPattern(t *testing.T) {
	good := map[string]mediaPattern{
		"text/*":             {typ: "text"},
		"application/json":   {typ: "application", sub: "json"},
		"application/*+json": {typ: "application", suffix: "+json"},
		" image/svg+xml ":    {typ: "image", sub: "svg+xml"},
	}
	for s, want := range good {
		if got, err := parseMediaPattern(s); err != nil || got != want {
			t.Errorf("parseMediaPattern(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "text", "*/*", "text/", "/json", "application/*json", "application/*+", "application/js on", "application/j*n", "text/html; charset=utf-8"} {
		if _, err := parseMediaPattern(s); err == nil {
			t.Errorf("parseMediaPattern(%q) accepted", s)
		}
	}
}

// TestAddVary: the middleware adds Accept-Encoding to Vary once, as one
// line, keeping what is there, and never writes into the value it shares
// between responses.
func TestAddVary(t *testing.T) {
	m, err := build(Config{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want []string }{
		{nil, []string{"Accept-Encoding"}},
		{[]string{""}, []string{"Accept-Encoding"}},
		{[]string{"Origin"}, []string{"Origin, Accept-Encoding"}},
		{[]string{"Origin", "Cookie"}, []string{"Origin, Cookie, Accept-Encoding"}},
		{[]string{"ACCEPT-ENCODING"}, []string{"ACCEPT-ENCODING"}},
		{[]string{"Origin", "*"}, []string{"*"}},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.in != nil {
			h["Vary"] = append([]string(nil), tt.in...)
		}
		m.vary.Add(h)
		m.vary.Add(h) // idempotent
		if got := h["Vary"]; !slices.Equal(got, tt.want) {
			t.Errorf("Add(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// The shared value is never written into.
	h := http.Header{}
	m.vary.Add(h)
	shared := h["Vary"]
	h.Add("Vary", "Cookie")
	m.vary.Add(h)
	if len(shared) != 1 || shared[0] != "Accept-Encoding" {
		t.Fatalf("shared Vary value changed: %q", shared)
	}
	h = http.Header{}
	m.vary.Add(h)
	if !slices.Equal(h["Vary"], []string{"Accept-Encoding"}) {
		t.Fatalf("shared Vary value changed: %q", h["Vary"])
	}
}
