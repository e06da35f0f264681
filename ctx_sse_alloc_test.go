package plinth_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

// A Send allocates nothing: the event is formatted into the stream's
// buffer, written and flushed through the server's writer.
func TestSSESendAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	app := plinth.New()
	measured := make(chan float64, 1)
	app.Get("/sse", func(c *plinth.Ctx) error {
		s, err := c.SSE(plinth.SSEConfig{Heartbeat: plinth.Off})
		if err != nil {
			return err
		}
		e := plinth.Event{ID: "12345", Event: "tick", Data: "line one\nline two"}
		measured <- testing.AllocsPerRun(200, func() { _ = s.Send(e) })
		return nil
	})
	srv := httptest.NewServer(app)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	go func() { _, _ = io.Copy(io.Discard, resp.Body) }()
	select {
	case allocs := <-measured:
		if allocs > 0 {
			t.Errorf("Send allocates %.1f times, budget 0", allocs)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no measurement")
	}
}
