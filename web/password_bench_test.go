package web_test

import (
	"testing"

	"github.com/plinth-go/plinth/web"
)

// BenchmarkHashPassword measures the default argon2id parameters' cost per
// hash, time and memory, the figures docs/web.md quotes:
//
//	go test -run '^$' -bench HashPassword -benchmem ./web/
func BenchmarkHashPassword(b *testing.B) {
	for b.Loop() {
		if _, err := web.HashPassword("correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
}
