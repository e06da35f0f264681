module github.com/plinth-go/plinth/bench/services

go 1.26.0

replace (
	github.com/plinth-go/plinth => ../..
	github.com/plinth-go/plinth/cache/otter => ../../cache/otter
	github.com/plinth-go/plinth/cache/redis => ../../cache/redis
)

require (
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/maypok86/otter/v2 v2.4.0
	github.com/plinth-go/plinth v0.0.0-00010101000000-000000000000
	github.com/plinth-go/plinth/cache/otter v0.0.0-00010101000000-000000000000
	github.com/plinth-go/plinth/cache/redis v0.0.0-00010101000000-000000000000
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/term v0.48.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)
