package bodybind

import (
	"strings"
	"testing"
)

// A syntax error's offset is the body's own, also from a pooled decoder
// that decoded other bodies before: the 400's detail points at the byte.
// Before, it counted every body the decoder had read.
func TestDecodeJSONSyntaxOffsetIsTheBodys(t *testing.T) {
	var v map[string]any
	for range 5 {
		if err := DecodeJSON([]byte(`{"a":"`+strings.Repeat("x", 100)+`"}  `), &v, true); err != nil {
			t.Fatal(err)
		}
	}
	err := DecodeJSON([]byte(`{"a":1,}`), &v, true)
	if !IsSyntax(err) {
		t.Fatalf("%v, want a syntax error", err)
	}
	if got, want := MalformedJSON(err).Detail, "(at byte 8)"; !strings.HasSuffix(got, want) {
		t.Errorf("detail %q, want it to end with %q", got, want)
	}
}

func TestMediaTypes(t *testing.T) {
	for ct, want := range map[string]string{"": "", "Application/JSON; charset=utf-8": "application/json", " text/plain ": "text/plain"} {
		if got := MediaType(ct); got != want {
			t.Errorf("MediaType(%q) = %q, want %q", ct, got, want)
		}
	}
	for media, want := range map[string]bool{"": true, "application/json": true, "application/problem+json": true, "text/json": false} {
		if IsJSON(media) != want {
			t.Errorf("IsJSON(%q) != %v", media, want)
		}
	}
}
