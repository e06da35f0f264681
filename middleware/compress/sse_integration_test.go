package compress_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/middleware/compress"
)

// A Ctx.SSE stream behind compress (and ETag inside it, the recommended
// order) is compressed and flushed per event: the client decodes the first
// event, and then a heartbeat, while the handler still waits, for every
// coding.
func TestSSEFlushedPerEvent(t *testing.T) {
	for _, coding := range append([]string{""}, codings...) {
		t.Run(coding, func(t *testing.T) {
			proceed := make(chan struct{})
			app := plinth.New()
			app.Logger = slog.New(slog.DiscardHandler)
			app.Use(compress.New(compress.Config{}), middleware.ETag(middleware.ETagConfig{}))
			app.Get("/sse", func(c *plinth.Ctx) error {
				s, err := c.SSE(plinth.SSEConfig{Heartbeat: 50 * time.Millisecond})
				if err != nil {
					return err
				}
				if err := s.Send(plinth.Event{ID: "1", Event: "tick", Data: "first"}); err != nil {
					return err
				}
				select {
				case <-proceed:
				case <-s.Done():
					return nil
				}
				return s.Send(plinth.Event{ID: "2", Event: "tick", Data: "second"})
			})
			srv := httptest.NewServer(app)
			defer srv.Close()
			defer close(proceed)
			tr := &http.Transport{DisableCompression: true}
			defer tr.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/sse", nil)
			if coding != "" {
				req.Header.Set("Accept-Encoding", coding)
			}
			res, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if got := res.Header.Get("Content-Encoding"); got != coding {
				t.Fatalf("Content-Encoding %q, want %q", got, coding)
			}
			if res.Header.Get("Etag") != "" {
				t.Errorf("the stream got an ETag %q", res.Header.Get("Etag"))
			}
			lines := make(chan string, 16)
			go func() {
				defer close(lines)
				var r io.Reader = res.Body
				switch coding {
				case compress.Gzip:
					zr, err := gzip.NewReader(res.Body)
					if err != nil {
						return
					}
					r = zr
				case compress.Brotli:
					r = brotli.NewReader(res.Body)
				case compress.Zstd:
					zr, err := zstd.NewReader(res.Body, zstd.WithDecoderConcurrency(1))
					if err != nil {
						return
					}
					defer zr.Close()
					r = zr
				}
				br := bufio.NewReader(r)
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					lines <- line
				}
			}()
			for _, want := range []string{"id: 1\n", "event: tick\n", "data: first\n", "\n", ":\n", "\n"} {
				select {
				case got := <-lines:
					if got != want {
						t.Fatalf("line %q, want %q", got, want)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("%q did not arrive while the handler waited", want)
				}
			}
		})
	}
}
