package middleware

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
)

// An event stream is never held or tagged: a short one written without a
// flush gets no ETag (so If-None-Match cannot turn it into a 304), and a
// Ctx.SSE stream reaches the client event by event.
func TestETagSkipsEventStreams(t *testing.T) {
	app := plinth.Bare()
	app.Use(ETag(ETagConfig{}))
	app.Get("/short", func(c *plinth.Ctx) error {
		c.Header().Set("Content-Type", "text/event-stream")
		_, err := c.Writer().Write([]byte("data: one\n\n"))
		return err
	})
	proceed := make(chan struct{})
	app.Get("/sse", func(c *plinth.Ctx) error {
		s, err := c.SSE(plinth.SSEConfig{Heartbeat: plinth.Off})
		if err != nil {
			return err
		}
		if err := s.Send(plinth.Event{Data: "first"}); err != nil {
			return err
		}
		<-proceed
		return s.Send(plinth.Event{Data: "second"})
	})
	for _, inm := range []string{"", "*"} {
		req := httptest.NewRequest("GET", "/short", nil)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		if rec.Code != 200 || rec.Header().Get("Etag") != "" || rec.Body.String() != "data: one\n\n" {
			t.Errorf("If-None-Match %q: %d, ETag %q, body %q", inm, rec.Code, rec.Header().Get("Etag"), rec.Body)
		}
	}

	srv := httptest.NewServer(app)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/sse")
	if err != nil {
		close(proceed)
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	got := make(chan string, 1)
	go func() {
		a, _ := br.ReadString('\n')
		b, _ := br.ReadString('\n')
		got <- a + b
	}()
	select {
	case s := <-got:
		if s != "data: first\n\n" {
			t.Errorf("first event %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Error("the first event did not arrive while the handler waited")
	}
	close(proceed)
}
