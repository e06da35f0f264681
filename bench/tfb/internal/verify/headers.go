package verify

import (
	"bytes"
	"mime"
	"net/http"
	"strings"
)

// checkResponse applies the rules every response must meet: status 200,
// the Server, Date and Content-Type headers, a Content-Length or
// Transfer-Encoding, the test's content type, and no compression. It reports
// whether the body is worth checking (status 200, not compressed).
func checkResponse(f *findings, t *testType, r *response) bool {
	if r.status != http.StatusOK {
		f.fail("status", r.url, "expected status 200, got %d (body %s)", r.status, excerpt(r.body))
		return false
	}
	for _, h := range []string{"Server", "Date", "Content-Type"} {
		if r.header.Get(h) == "" {
			f.fail("headers", r.url, "required header %s is missing", h)
		}
	}
	if _, ok := r.header["Content-Length"]; !ok && len(r.transferEncoding) == 0 {
		f.fail("headers", r.url, "neither Content-Length nor Transfer-Encoding is set")
	}
	if d := r.header.Get("Date"); d != "" {
		if _, err := http.ParseTime(d); err != nil {
			f.warn("headers", r.url, "Date %q is not an HTTP date", d)
		}
	}
	checkContentType(f, t, r)
	compressed := false
	if ce := r.header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		f.fail("no-gzip", r.url, "the request sent Accept-Encoding: gzip and the response came with Content-Encoding: %s; TFB forbids compression", ce)
		compressed = true
	} else if bytes.HasPrefix(r.body, []byte{0x1f, 0x8b}) {
		f.fail("no-gzip", r.url, "the body is gzip data without a Content-Encoding header")
		compressed = true
	}
	return !compressed
}

// checkContentType compares the media type; the charset is optional except
// for fortunes, which must be text/html; charset=utf-8.
func checkContentType(f *findings, t *testType, r *response) {
	ct := r.header.Get("Content-Type")
	if ct == "" {
		return // reported by the header check
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		f.fail("content-type", r.url, "expected %s, got unparsable %q: %v", t.mediaType, ct, err)
		return
	}
	if mt != t.mediaType {
		f.fail("content-type", r.url, "expected %s, got %q", t.mediaType, ct)
		return
	}
	cs, hasCharset := params["charset"]
	if t.name == "fortunes" {
		if !strings.EqualFold(cs, "utf-8") {
			f.fail("content-type", r.url, "expected text/html; charset=utf-8 (charset mandatory), got %q", ct)
		}
		return
	}
	if hasCharset && !strings.EqualFold(cs, "utf-8") {
		f.warn("content-type", r.url, "charset %q: expected utf-8 or none in %q", cs, ct)
	}
}

// excerpt quotes at most 200 bytes of b for a message.
func excerpt(b []byte) string {
	const n = 200
	if len(b) > n {
		return strings.TrimSpace(quote(b[:n])) + "..."
	}
	return quote(b)
}

func quote(b []byte) string {
	return "`" + strings.ReplaceAll(string(b), "\n", `\n`) + "`"
}
