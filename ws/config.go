package ws

import (
	"time"
)

// Defaults of Config, used when a field is zero.
const (
	// DefaultReadLimit is the largest message read, in bytes (64 KiB); a
	// larger one closes the connection with 1009 (message too big).
	DefaultReadLimit = 64 << 10
	// DefaultPingInterval is how long a connection may be idle before the
	// server sends a ping.
	DefaultPingInterval = 30 * time.Second
	// DefaultPongTimeout is how long the server waits for the pong.
	DefaultPongTimeout = 10 * time.Second
	// DefaultMaxConns caps the WebSocket connections open at once on an App.
	DefaultMaxConns = 10_000
	// DefaultRetryAfter is the Retry-After sent with a 503 refusal.
	DefaultRetryAfter = 5 * time.Second
)

// Config configures Accept. Its zero value is the documented default of
// every field.
type Config struct {
	// OriginPatterns widens the origins allowed besides the request's own
	// host (same-origin is always allowed, and so is a request without an
	// Origin header, which no browser sends). Each pattern is matched with
	// path.Match against the Origin's host (with its port when it has one),
	// case-insensitively: "example.com", "*.example.com",
	// "localhost:*". "*" allows every origin. A cross-origin request that no
	// pattern matches gets 403 before any upgrade.
	OriginPatterns []string

	// ReadLimit is the largest message read, in bytes; a larger one closes
	// the connection with 1009. Default DefaultReadLimit (64 KiB); plinth.Off
	// for no limit.
	ReadLimit int64

	// PingInterval is the keepalive: a ping is sent this long after the
	// previous one was answered, by a timer. Default DefaultPingInterval
	// (30 s); plinth.Off switches the keepalive off. A pong is only read while the
	// handler reads (Conn.Read), as every frame is.
	PingInterval time.Duration

	// PongTimeout is how long the pong may take; without it in time the
	// connection is closed. Default DefaultPongTimeout (10 s).
	PongTimeout time.Duration

	// MaxConns caps the WebSocket connections open at once on the App
	// (counted across every Accept on the App); over it the request gets
	// 503 with Retry-After, before any upgrade. Default DefaultMaxConns
	// (10,000); plinth.Off for no cap. The App's MaxConnections (the listener's
	// cap, 10,000 by default) applies as well.
	MaxConns int

	// RetryAfter is the Retry-After of a 503 refusal (over MaxConns or
	// while draining), in whole seconds. Default DefaultRetryAfter (5 s).
	RetryAfter time.Duration

	// Subprotocols lists the subprotocols the server speaks, in order of
	// preference; the first one the client offers is chosen. Default none.
	Subprotocols []string

	// AllowInvalidUTF8 skips the UTF-8 check of text messages. By default a
	// text message that is not valid UTF-8 closes the connection with 1007,
	// as RFC 6455 asks.
	AllowInvalidUTF8 bool
}

func (c Config) withDefaults() Config {
	if c.ReadLimit == 0 {
		c.ReadLimit = DefaultReadLimit
	}
	if c.PingInterval == 0 {
		c.PingInterval = DefaultPingInterval
	}
	if c.PongTimeout <= 0 {
		c.PongTimeout = DefaultPongTimeout
	}
	if c.MaxConns == 0 {
		c.MaxConns = DefaultMaxConns
	}
	if c.RetryAfter <= 0 {
		c.RetryAfter = DefaultRetryAfter
	}
	return c
}
