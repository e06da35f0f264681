package web_test

// Boundary tests of PrefersHTML from mutation testing:
// q=0 means "not acceptable", q outside [0, 1] is ignored, a tie is not a
// preference, and an empty list element is skipped.

import (
	"net/http/httptest"
	"testing"

	"github.com/plinth-go/plinth/web"
)

func TestPrefersHTMLQualityEdges(t *testing.T) {
	for accept, want := range map[string]bool{
		"text/html":                                           true,
		"text/html;q=0":                                       false, // exactly 0: not acceptable
		"text/html;q=0.001":                                   true,
		"text/html;q=1, application/json":                     false, // a tie
		"application/json;q=0.9, text/html;q=0.5":             false,
		"application/json;q=0.5, text/html;q=0.9":             true,
		"text/html;q=1.5, application/json;q=0.9":             true, // q over 1 ignored: 1
		"text/html;q=-1, application/json;q=0.9":              true, // negative q ignored: 1
		"text/html;q=x, application/json;q=0.9":               true, // bad q ignored: 1
		"application/json;q=1, text/html;q=1":                 false,
		",text/html":                                          true, // an empty element first
		"application/problem+json, text/html;q=0.99":          false,
		"application/xhtml+xml;q=0.8, application/json;q=0.7": true,
		"*/*": false,
		"":    false,
	} {
		r := httptest.NewRequest("GET", "/", nil)
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		if got := web.PrefersHTML(r); got != want {
			t.Errorf("Accept %q: %v, want %v", accept, got, want)
		}
	}
}
