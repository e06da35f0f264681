//go:build plinth_enginepoison

package engine

import (
	"net/http"
	"strings"
	"testing"
)

// TestPoisonedRequest: in a plinth_enginepoison build, a request kept past
// its handler fails loudly at its next use.
func TestPoisonedRequest(t *testing.T) {
	kept := make(chan *http.Request, 1)
	_, addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case kept <- r:
		default:
		}
	}))
	exchange(t, addr, "GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n", 2)
	r := <-kept
	if r.URL != nil || r.Header != nil || !strings.HasPrefix(r.Method, "POISONED") {
		t.Errorf("kept request not poisoned: %q %v %v", r.Method, r.URL, r.Header)
	}
	defer func() {
		if recover() == nil {
			t.Error("reading a kept body did not panic")
		}
	}()
	r.Body.Read(make([]byte, 1))
}
