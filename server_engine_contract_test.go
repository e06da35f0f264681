package plinth

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestRequestAfterReturn, on both engines, with New's handler
// timeout and without it (PLINTH_HANDLER_TIMEOUT=0, Off): a goroutine that
// outlives its handler reads its own request (header, path), finds its
// context cancelled, and gets nil from CtxOf, never another request's Ctx,
// while the same keep-alive connections serve more requests. On main at
// 225b12c the engine handed the next client's header to such reads,
// CtxOf returned the pooled Ctx (by then another request's) on both
// engines, and with the timeout off the engine's context stayed live.
func TestRequestAfterReturn(t *testing.T) {
	for _, timeout := range []struct {
		name string
		d    time.Duration
	}{{"timeout=default", 0}, {"timeout=off", Off}} {
		t.Run(timeout.name, func(t *testing.T) {
			forEngines(t, func(t *testing.T, eng string) {
				const clients, perClient = 4, 25
				type late struct {
					want, header, path string
					ctx                *Ctx
					ctxErr             error
				}
				reads := make(chan late, clients*perClient)
				var wg sync.WaitGroup
				app := New()
				app.HandlerTimeout = timeout.d
				app.HandleFunc("GET /s/{secret}", func(w http.ResponseWriter, r *http.Request) {
					secret := r.PathValue("secret")
					if CtxOf(r) == nil {
						t.Error("CtxOf is nil while the handler runs")
					}
					w.Write([]byte(secret))
					wg.Go(func() {
						time.Sleep(20 * time.Millisecond)
						reads <- late{want: secret, header: r.Header.Get("X-Secret"), path: r.URL.Path, ctx: CtxOf(r), ctxErr: r.Context().Err()}
					})
				})
				s, _ := serveOn(t, eng, app)
				var cw sync.WaitGroup
				for i := range clients {
					cw.Go(func() {
						c := dialRaw(t, s.addr)
						br := bufio.NewReader(c)
						for j := range perClient {
							secret := fmt.Sprintf("c%d-r%d", i, j)
							writeRaw(t, c, "GET /s/"+secret+" HTTP/1.1\r\nHost: a\r\nX-Secret: "+secret+"\r\n\r\n")
							if _, body, err := readResponse(c, br, soon); err != nil || body != secret {
								t.Errorf("answer %q %v, want %q", body, err, secret)
								return
							}
						}
					})
				}
				cw.Wait()
				wg.Wait()
				close(reads)
				n := 0
				for l := range reads {
					n++
					if l.header != l.want || l.path != "/s/"+l.want {
						t.Errorf("a late read of %q saw header %q, path %q", l.want, l.header, l.path)
					}
					if l.ctx != nil {
						t.Errorf("CtxOf after the handler of %q returned: a Ctx, want nil", l.want)
					}
					if !errors.Is(l.ctxErr, context.Canceled) {
						t.Errorf("the context of %q after its handler returned: %v, want context.Canceled", l.want, l.ctxErr)
					}
				}
				if n != clients*perClient {
					t.Errorf("%d late reads, want %d", n, clients*perClient)
				}
			})
		})
	}
}
