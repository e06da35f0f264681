//go:build plinth_enginepoison

package engine

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestPoisonedBodyRead: in a plinth_enginepoison build, a Body read after
// its handler returned panics (a normal build returns
// http.ErrBodyReadAfterClose), so that a test finds the handler that does
// it.
func TestPoisonedBodyRead(t *testing.T) {
	kept := make(chan *http.Request, 1)
	_, addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case kept <- r:
		default:
		}
	}))
	converse(t, addr, "POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nxGET /b HTTP/1.1\r\nHost: a\r\n\r\n", 2)
	r := <-kept
	if r.URL.Path != "/a" || r.Method != "POST" {
		t.Errorf("a kept request changed: %s %s", r.Method, r.URL)
	}
	defer func() {
		if v := recover(); v == nil || !strings.Contains(v.(string), "after its handler returned") {
			t.Errorf("reading a kept body: recovered %v, want the poison panic", v)
		}
	}()
	io.ReadAll(r.Body)
}

// TestPoisonCatchesReuse: the poison build's check of the engine itself: a
// request changed after its handler returned (what a reuse by the engine
// would do) panics at the connection's next request.
func TestPoisonCatchesReuse(t *testing.T) {
	r, _ := http.NewRequest("GET", "/a", nil)
	r.Header.Set("X", "1")
	c := &conn{req: r}
	releaseRequest(c)
	r.Header.Set("X", "another request's")
	defer func() {
		if recover() == nil {
			t.Error("a changed request was not caught")
		}
	}()
	checkReleased(c)
}
