// Package ws serves WebSocket connections (RFC 6455) from Plinth handlers.
//
// It is a thin layer on github.com/coder/websocket (v1.8.x), kept in its own
// module so that the core stays on the standard library. The layer adds what a
// Plinth App needs around the library:
//
//   - the handshake is checked before any upgrade, and every refusal is a
//     *plinth.Problem the handler returns, rendered by the App's renderer:
//     405 for a method other than GET, 426 for a request that is not an
//     HTTP/1.1 Upgrade to websocket (HTTP/1.0 and HTTP/2 included), 400 for a
//     version other than 13 or a missing, repeated or malformed
//     Sec-WebSocket-Key, 403 for a cross-origin request, 503 with
//     Retry-After over MaxConns or while the App drains;
//   - every connection is registered with its App: when the App starts
//     draining, each one is sent close 1001 (going away), so that handlers
//     return inside the grace period;
//   - the handler timeout is lifted for the request (c.LiftDeadline) and the
//     hijacked connection's deadlines are cleared; body limits never apply;
//   - keepalive pings by a timer (no goroutine per idle connection), and a
//     connection whose pong does not come back in PongTimeout is closed;
//   - text messages with invalid UTF-8 are refused with close 1007;
//   - Conn.Detach serves a connection on a goroutine of its own so that the
//     handler returns and an idle connection holds less memory; Attach makes
//     the drain wait for detached connections.
//
// A handler:
//
//	app.Get("/ws", func(c *plinth.Ctx) error {
//		conn, err := ws.Accept(c, ws.Config{})
//		if err != nil {
//			return err // a problem: 403, 426, 503 ...
//		}
//		defer conn.CloseNow()
//		for {
//			typ, msg, err := conn.Read(context.Background())
//			if err != nil {
//				return nil // closed: by the peer, the drain or a protocol error
//			}
//			if err := conn.Write(context.Background(), typ, msg); err != nil {
//				return nil
//			}
//		}
//	})
package ws
