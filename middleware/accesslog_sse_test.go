package middleware

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/internal/syncbuf"
)

// An event stream is logged once it ends, with its status, the bytes it
// sent and its whole duration.
func TestAccessLogSSE(t *testing.T) {
	var out syncbuf.Buffer
	app := plinth.New()
	app.Logger = slog.New(slog.DiscardHandler)
	app.Use(AccessLog(AccessLogConfig{Logger: slog.New(slog.NewJSONHandler(&out, nil))}))
	app.Get("/sse", func(c *plinth.Ctx) error {
		s, err := c.SSE(plinth.SSEConfig{})
		if err != nil {
			return err
		}
		for range 3 {
			time.Sleep(50 * time.Millisecond)
			if err := s.Send(plinth.Event{Data: "0123456789"}); err != nil {
				return err
			}
		}
		return nil
	})
	srv := httptest.NewServer(app)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	srv.Close() // the record is written when the handler returned
	var rec struct {
		Status   int   `json:"status"`
		Bytes    int64 `json:"bytes"`
		Duration int64 `json:"duration"`
	}
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	if rec.Status != 200 || rec.Bytes != int64(len(body)) || rec.Bytes != int64(3*len("data: 0123456789\n\n")) || time.Duration(rec.Duration) < 150*time.Millisecond {
		t.Errorf("record %+v, body %d bytes", rec, len(body))
	}
}
