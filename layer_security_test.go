package plinth

import (
	"net/http"
	"testing"
)

// isDocument decides which security set a response gets: every type a
// browser can render as a page that runs script is a document, whatever its
// case, spacing or parameters; a missing or blank type is one too.
func TestIsDocument(t *testing.T) {
	for ct, want := range map[string]bool{
		"text/html; charset=utf-8":        true,
		"TEXT/HTML":                       true,
		"  text/html":                     true,
		"\ttext/xml;charset=utf-8":        true,
		"application/xhtml+xml":           true,
		"Application/XML":                 true,
		"image/svg+xml":                   true,
		"":                                true,
		"   ":                             true,
		"text/plain; charset=utf-8":       false,
		"application/json":                false,
		"application/problem+json":        false,
		"image/png":                       false,
		"text/css":                        false,
		"application/octet-stream":        false,
		"video/mp4":                       false,
		"text/htm":                        false,
		"application/javascript":          false,
		"multipart/form-data; boundary=x": false,
	} {
		if got := isDocument(http.Header{"Content-Type": {ct}}); got != want {
			t.Errorf("isDocument(%q) = %v, want %v", ct, got, want)
		}
	}
	if !isDocument(http.Header{}) {
		t.Error("no Content-Type: not a document")
	}
	if !isDocument(http.Header{"Content-Type": nil}) {
		t.Error("Content-Type set to nil: not a document")
	}
}
