package verify

import (
	"bytes"
	"context"
	"encoding/json"
)

// checkJSON verifies /json: exactly the object {"message":"Hello, World!"}.
func (v *verifier) checkJSON(ctx context.Context, f *findings, t *testType) {
	r := v.fetch(ctx, f, t, t.sample)
	if r == nil {
		return
	}
	var got map[string]any
	if err := json.Unmarshal(r.body, &got); err != nil {
		f.fail("body", r.url, `expected {"message":"Hello, World!"}, got invalid JSON %s: %v`, excerpt(r.body), err)
	} else if len(got) != 1 || got["message"] != "Hello, World!" {
		f.fail("body", r.url, `expected exactly {"message":"Hello, World!"}, got %s`, excerpt(r.body))
	}
	f.pass("body", r.url, `{"message":"Hello, World!"}`)
}

// checkPlaintext verifies /plaintext: exactly "Hello, World!".
func (v *verifier) checkPlaintext(ctx context.Context, f *findings, t *testType) {
	r := v.fetch(ctx, f, t, t.sample)
	if r == nil {
		return
	}
	if !bytes.Equal(r.body, []byte("Hello, World!")) {
		f.fail("body", r.url, "expected exactly `Hello, World!`, got %s", excerpt(r.body))
	}
	f.pass("body", r.url, "Hello, World!")
}

// fetch gets path and applies the common response checks; it returns nil
// (after recording why) when the body cannot be checked.
func (v *verifier) fetch(ctx context.Context, f *findings, t *testType, path string) *response {
	r, err := v.get(ctx, path)
	if err != nil {
		f.fail("status", v.cfg.BaseURL+path, "request failed: %v", err)
		return nil
	}
	if !checkResponse(f, t, r) {
		return nil
	}
	return r
}

// passCommon records PASS for the common checks that found nothing.
func passCommon(f *findings, t *testType, url string) {
	f.pass("status", url, "200 OK")
	f.pass("headers", url, "Server, Date, Content-Type and a length or Transfer-Encoding present")
	if t.name == "fortunes" {
		f.pass("content-type", url, "text/html; charset=utf-8")
	} else {
		f.pass("content-type", url, "%s", t.mediaType)
	}
	f.pass("no-gzip", url, "not compressed despite Accept-Encoding: gzip")
}
