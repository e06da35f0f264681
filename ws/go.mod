module github.com/plinth-go/plinth/ws

go 1.26.0

require github.com/plinth-go/plinth v0.1.0

require (
	github.com/andybalholm/brotli v1.3.0 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/term v0.48.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)

require (
	github.com/coder/websocket v1.8.15
	github.com/plinth-go/plinth/middleware/compress v0.1.0
)
