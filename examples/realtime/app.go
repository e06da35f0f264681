package main

import (
	"context"
	"html/template"
	"net/http"
	"strings"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware/compress"
	"github.com/plinth-go/plinth/ws"
)

// newApp builds the example's App: compression in front of everything (the
// SSE stream is flushed per event through it; the WebSocket upgrade is
// never touched by it).
func newApp() *plinth.App {
	app := plinth.New()
	ws.Attach(app) // the drain waits for detached WebSockets (echo) as for handlers
	app.Use(compress.New(compress.Config{}))
	app.Get("/", page)
	app.Get("/ws", echo)
	app.Get("/events", events)
	return app
}

// echo sends every WebSocket message back as it came (text or binary). The
// handler returns at once: Detach runs the echo on a goroutine of its own,
// which holds an idle connection in less memory than a handler parked in
// Read (docs/realtime.md); ws.Attach in newApp makes the drain wait for it.
func echo(c *plinth.Ctx) error {
	conn, err := ws.Accept(c, ws.Config{})
	if err != nil {
		return err // 403, 426, 503 ... rendered as a problem
	}
	conn.Detach(func(conn *ws.Conn) {
		ctx := context.Background()
		for {
			typ, msg, err := conn.Read(ctx)
			if err != nil {
				return // the peer closed, the drain sent 1001, or a protocol error was answered
			}
			if err := conn.Write(ctx, typ, msg); err != nil {
				return
			}
		}
	})
	return nil
}

var pageTmpl = template.Must(template.New("page").Parse(strings.TrimSpace(`
<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Plinth real-time</title></head>
<body>
<h1>Plinth real-time</h1>
<p>Server-sent events: <output id="tick">waiting</output></p>
<form id="form"><input id="msg" value="hello" aria-label="message"> <button>Send over WebSocket</button></form>
<ol id="echo"></ol>
<script nonce="{{.Nonce}}">
const tick = document.getElementById("tick");
const es = new EventSource("/events");
es.addEventListener("tick", e => { tick.textContent = "tick " + e.lastEventId; });
es.addEventListener("shutdown", () => { tick.textContent = "server shutting down"; es.close(); });
const sock = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
const list = document.getElementById("echo");
sock.onmessage = e => { const li = document.createElement("li"); li.textContent = e.data; list.append(li); };
sock.onclose = e => { const li = document.createElement("li"); li.textContent = "closed " + e.code; list.append(li); };
document.getElementById("form").addEventListener("submit", e => {
  e.preventDefault();
  sock.send(document.getElementById("msg").value);
});
</script>
</body>
</html>
`)))

// page serves the demo page; its inline script runs under the CSP nonce.
func page(c *plinth.Ctx) error {
	var b strings.Builder
	if err := pageTmpl.Execute(&b, struct{ Nonce string }{c.CSPNonce()}); err != nil {
		return err
	}
	return c.HTML(http.StatusOK, b.String())
}
