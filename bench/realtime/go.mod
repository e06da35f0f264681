module github.com/plinth-go/plinth/bench/realtime

go 1.26.0

replace (
	github.com/plinth-go/plinth => ../..
	github.com/plinth-go/plinth/ws => ../../ws
)

require (
	github.com/coder/websocket v1.8.15
	github.com/gorilla/websocket v1.5.3
	github.com/lxzan/gws v1.8.9
	github.com/plinth-go/plinth v0.0.0-00010101000000-000000000000
	github.com/plinth-go/plinth/ws v0.0.0-00010101000000-000000000000
)

require (
	github.com/dolthub/maphash v0.1.0 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
)

replace github.com/plinth-go/plinth/middleware/compress => ../../middleware/compress
