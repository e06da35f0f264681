module github.com/plinth-go/plinth/examples/realtime

go 1.26.0

replace (
	github.com/plinth-go/plinth => ../..
	github.com/plinth-go/plinth/middleware/compress => ../../middleware/compress
	github.com/plinth-go/plinth/ws => ../../ws
)

require (
	github.com/plinth-go/plinth v0.0.0-00010101000000-000000000000
	github.com/plinth-go/plinth/middleware/compress v0.0.0-00010101000000-000000000000
	github.com/plinth-go/plinth/ws v0.0.0-00010101000000-000000000000
)

require (
	github.com/andybalholm/brotli v1.3.0 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
)
