module github.com/plinth-go/plinth/middleware/compress

go 1.26.0

replace github.com/plinth-go/plinth => ../..

require (
	github.com/andybalholm/brotli v1.3.0
	github.com/klauspost/compress v1.20.4
	github.com/plinth-go/plinth v0.0.0-00010101000000-000000000000
)

require golang.org/x/net v0.62.0 // indirect
