package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// streamStall is how long an SSE stream may stay silent (the app sends a
// tick about every second) or a WebSocket echo may be late before the
// stream counts as stalled and is closed by the client.
const streamStall = 5 * time.Second

// realtime keeps SSE streams and WebSockets open through the load balancer
// for the whole run, each reconnecting after its end (after 1 s and up to
// 0.5 s of jitter, as a browser's EventSource waits before it retries), and
// records every end: for SSE whether `event: shutdown` came first, for a
// WebSocket its close code.
type realtime struct {
	base    string // http://127.0.0.1:port of the load balancer
	servers []lbServer
	rec     *recorder
	wg      sync.WaitGroup
}

// start opens n SSE streams and n WebSockets; they run until ctx ends.
func (rt *realtime) start(ctx context.Context, n int) {
	for i := range n {
		rt.wg.Add(2)
		go func() { defer rt.wg.Done(); rt.sseLoop(ctx, i) }()
		go func() { defer rt.wg.Done(); rt.wsLoop(ctx, i) }()
	}
}

// wait waits for the streams to end after ctx did.
func (rt *realtime) wait() { rt.wg.Wait() }

// streamClient is a stream's HTTP client: no timeout (streams last), its
// own connections and address.
func streamClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 3 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 1,
	}}
}

// reconnectDelay is the pause before a stream reconnects.
func reconnectDelay(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(time.Second + rand.N(500*time.Millisecond)):
	}
}

// sseLoop keeps SSE stream i open.
func (rt *realtime) sseLoop(ctx context.Context, i int) {
	hc := streamClient()
	xff := fmt.Sprintf("10.2.0.%d", i+1)
	for ctx.Err() == nil {
		c := rt.sseOnce(ctx, hc, xff, i)
		if ctx.Err() != nil {
			return // the harness stopped: not an end to record
		}
		rt.rec.addClose(c)
		reconnectDelay(ctx)
	}
}

// sseOnce opens the stream, reads it to its end and says how it ended.
func (rt *realtime) sseOnce(ctx context.Context, hc *http.Client, xff string, i int) streamClose {
	c := streamClose{Kind: "sse", Stream: i}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, _ := http.NewRequestWithContext(sctx, http.MethodGet, rt.base+"/events", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("X-Forwarded-For", xff)
	opened := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		c.At, c.Connect, c.Err = time.Now(), true, classifyErr(err)+": "+err.Error()
		return c
	}
	defer resp.Body.Close()
	c.Backend = backendName(resp.Header.Get("X-Plinth-Backend"), rt.servers)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		c.At, c.Connect, c.Status = time.Now(), true, resp.StatusCode
		c.Err = fmt.Sprintf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		return c
	}
	// A watchdog ends a stream silent for streamStall.
	var mu sync.Mutex
	last := time.Now()
	stalled := false
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-sctx.Done():
				return
			case <-t.C:
				mu.Lock()
				if time.Since(last) > streamStall {
					stalled = true
					mu.Unlock()
					cancel()
					return
				}
				mu.Unlock()
			}
		}
	}()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		mu.Lock()
		last = time.Now()
		mu.Unlock()
		switch strings.TrimSpace(line) {
		case "event: shutdown", "event:shutdown":
			c.Shutdown = true
		}
	}
	c.At, c.Lived = time.Now(), time.Since(opened)
	mu.Lock()
	defer mu.Unlock()
	switch err := sc.Err(); {
	case stalled:
		c.Err = fmt.Sprintf("stalled: no line for %v", streamStall)
	case err != nil:
		c.Err = classifyErr(err) + ": " + err.Error()
	default:
		c.Err = "ended"
	}
	return c
}

// wsLoop keeps WebSocket i open, sending a message every second.
func (rt *realtime) wsLoop(ctx context.Context, i int) {
	hc := streamClient()
	xff := fmt.Sprintf("10.3.0.%d", i+1)
	seq := 0
	for ctx.Err() == nil {
		c := rt.wsOnce(ctx, hc, xff, i, &seq)
		if ctx.Err() != nil {
			return
		}
		rt.rec.addClose(c)
		reconnectDelay(ctx)
	}
}

// wsOnce opens the WebSocket, echoes a message a second until it ends and
// says how it ended.
func (rt *realtime) wsOnce(ctx context.Context, hc *http.Client, xff string, i int, seq *int) streamClose {
	c := streamClose{Kind: "ws", Stream: i}
	url := "ws" + strings.TrimPrefix(rt.base, "http") + "/ws"
	dctx, dcancel := context.WithTimeout(ctx, requestTimeout)
	conn, resp, err := websocket.Dial(dctx, url, &websocket.DialOptions{
		HTTPClient: hc,
		HTTPHeader: http.Header{"X-Forwarded-For": {xff}},
	})
	dcancel()
	if resp != nil {
		c.Backend = backendName(resp.Header.Get("X-Plinth-Backend"), rt.servers)
	}
	if err != nil {
		c.At, c.Connect, c.Err = time.Now(), true, err.Error()
		if resp != nil {
			c.Status = resp.StatusCode
		}
		return c
	}
	opened := time.Now()
	defer conn.CloseNow()
	type msg struct {
		data string
		err  error
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reads := make(chan msg, 4)
	go func() {
		for {
			_, data, err := conn.Read(sctx)
			select {
			case reads <- msg{string(data), err}:
			case <-sctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	var pending []string
	var pendingSince time.Time
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	end := func(err error) streamClose {
		c.At, c.Lived = time.Now(), time.Since(opened)
		code := websocket.CloseStatus(err)
		switch {
		case code != -1:
			c.Code = int(code)
			c.Err = "close " + fmt.Sprint(int(code))
			var ce websocket.CloseError
			if errors.As(err, &ce) && ce.Reason != "" {
				c.Err += " " + ce.Reason
			}
		default:
			c.Code = 1006 // ended without a close frame
			c.Err = err.Error()
		}
		return c
	}
	for {
		select {
		case <-ctx.Done():
			return c
		case m := <-reads:
			if m.err != nil {
				return end(m.err)
			}
			if len(pending) == 0 || m.data != pending[0] {
				c.Wrong = true
				c.At, c.Lived = time.Now(), time.Since(opened)
				c.Err = fmt.Sprintf("echo %q, want %q", m.data, pending)
				return c
			}
			pending = pending[1:]
			pendingSince = time.Now()
		case <-tick.C:
			if len(pending) > 0 && time.Since(pendingSince) > streamStall {
				c.At, c.Lived, c.Code = time.Now(), time.Since(opened), 0
				c.Err = fmt.Sprintf("stalled: no echo for %v", streamStall)
				return c
			}
			*seq++
			m := fmt.Sprintf("ws%d-%d", i, *seq)
			wctx, wcancel := context.WithTimeout(ctx, 2*time.Second)
			err := conn.Write(wctx, websocket.MessageText, []byte(m))
			wcancel()
			if err != nil {
				// the close frame, if any, comes through the reader
				select {
				case r := <-reads:
					if r.err != nil {
						return end(r.err)
					}
				case <-time.After(time.Second):
				}
				return end(err)
			}
			if len(pending) == 0 {
				pendingSince = time.Now()
			}
			pending = append(pending, m)
		}
	}
}
