// Package realtime measures Plinth's ws module beside the WebSocket
// libraries it is compared with (github.com/coder/websocket, which it is
// built on, github.com/gorilla/websocket and github.com/lxzan/gws): memory
// per idle connection (cmd/wsidle, run-ws-idle.sh) and echo throughput and
// allocations per message (echo_test.go, run-ws-echo.sh). Every server here
// is an echo server with each library's usual handler shape.
package realtime

import (
	"context"
	"net/http"

	"github.com/coder/websocket"
	gorilla "github.com/gorilla/websocket"
	"github.com/lxzan/gws"
	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/ws"
)

// Libs are the servers compared, in the order of the tables.
var Libs = []string{"plinth", "coder", "gorilla", "gws"}

// EchoHandler returns lib's echo server at /ws (lib "plinth-noutf8" is
// Plinth's with Config.AllowInvalidUTF8, to measure the UTF-8 check;
// "plinth-detached" uses Conn.Detach, "coder-detached" the same shape on raw
// coder); stats, when not nil, is
// served at /stats.
func EchoHandler(lib string, stats http.HandlerFunc) http.Handler {
	switch lib {
	case "plinth-detached":
		app := plinth.New()
		ws.Attach(app)
		app.Get("/ws", func(c *plinth.Ctx) error {
			conn, err := ws.Accept(c, ws.Config{MaxConns: plinth.Off})
			if err != nil {
				return err
			}
			conn.Detach(func(conn *ws.Conn) {
				ctx := context.Background()
				for {
					typ, msg, err := conn.Read(ctx)
					if err != nil {
						return
					}
					if err := conn.Write(ctx, typ, msg); err != nil {
						return
					}
				}
			})
			return nil
		})
		if stats != nil {
			app.Handle("/stats", stats)
		}
		return app
	case "plinth", "plinth-noutf8":
		cfg := ws.Config{MaxConns: plinth.Off, AllowInvalidUTF8: lib == "plinth-noutf8"}
		app := plinth.New()
		app.Get("/ws", func(c *plinth.Ctx) error {
			conn, err := ws.Accept(c, cfg)
			if err != nil {
				return err
			}
			defer conn.CloseNow()
			ctx := c.Context()
			for {
				typ, msg, err := conn.Read(ctx)
				if err != nil {
					return nil
				}
				if err := conn.Write(ctx, typ, msg); err != nil {
					return nil
				}
			}
		})
		if stats != nil {
			app.Handle("/stats", stats)
		}
		return app
	}
	mux := http.NewServeMux()
	if stats != nil {
		mux.HandleFunc("/stats", stats)
	}
	switch lib {
	case "coder":
		mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
			conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
			if err != nil {
				return
			}
			defer conn.CloseNow()
			conn.SetReadLimit(64 << 10)
			ctx := context.Background()
			for {
				typ, msg, err := conn.Read(ctx)
				if err != nil {
					return
				}
				if err := conn.Write(ctx, typ, msg); err != nil {
					return
				}
			}
		})
	case "coder-detached":
		// Not a peer: what a handler that returns after the upgrade, its
		// reads on a fresh goroutine, would hold (docs/realtime.md, "what it
		// would take").
		mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
			conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
			if err != nil {
				return
			}
			conn.SetReadLimit(64 << 10)
			go func() {
				defer conn.CloseNow()
				ctx := context.Background()
				for {
					typ, msg, err := conn.Read(ctx)
					if err != nil {
						return
					}
					if err := conn.Write(ctx, typ, msg); err != nil {
						return
					}
				}
			}()
		})
	case "gorilla":
		up := gorilla.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
		mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
			conn, err := up.Upgrade(w, r, nil)
			if err != nil {
				return
			}
			defer conn.Close()
			conn.SetReadLimit(64 << 10)
			for {
				typ, msg, err := conn.ReadMessage()
				if err != nil {
					return
				}
				if err := conn.WriteMessage(typ, msg); err != nil {
					return
				}
			}
		})
	case "gws":
		up := gws.NewUpgrader(gwsEcho{}, &gws.ServerOption{ReadMaxPayloadSize: 64 << 10})
		mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
			conn, err := up.Upgrade(w, r)
			if err != nil {
				return
			}
			conn.ReadLoop() // the handler's goroutine reads, as in the others
		})
	default:
		panic("realtime: unknown library " + lib)
	}
	return mux
}

type gwsEcho struct{ gws.BuiltinEventHandler }

func (gwsEcho) OnMessage(c *gws.Conn, m *gws.Message) {
	_ = c.WriteMessage(m.Opcode, m.Bytes())
	m.Close()
}
