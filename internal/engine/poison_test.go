package engine

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestKeptRequestIsNotARace: a handler that hands its request
// to a goroutine reading it after the handler returned is legal net/http
// code, and on the engine it neither races with the connection (under
// -race the detector would fail this test) nor sees another request. An
// engine that reuses its *http.Request fails here with a reported race.
func TestKeptRequestIsNotARace(t *testing.T) {
	var wg sync.WaitGroup
	type kept struct {
		r    *http.Request
		want string
	}
	ch := make(chan kept, 16)
	_, addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ch <- kept{r, r.URL.Path + "|" + r.Header.Get("X-N")}
	}))
	wg.Go(func() {
		for k := range ch {
			time.Sleep(time.Millisecond)
			if got := k.r.URL.Path + "|" + k.r.Header.Get("X-N"); got != k.want {
				t.Errorf("a kept request reads %q, want %q", got, k.want)
			}
		}
	})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	for i := 0; i < 10; i++ {
		c.Write([]byte("GET /" + strings.Repeat("x", i) + " HTTP/1.1\r\nHost: a\r\nX-N: " + strings.Repeat("n", i) + "\r\n\r\n"))
		if resp, err := http.ReadResponse(br, nil); err == nil {
			resp.Body.Close()
		}
	}
	c.Close()
	time.Sleep(10 * time.Millisecond)
	close(ch)
	wg.Wait()
}
