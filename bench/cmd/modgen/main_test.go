package main

import (
	"bytes"
	"os"
	"testing"
)

// The committed bench/modules_gen_test.go is this generator's output, byte
// for byte: a change to the generator must come with the regenerated file
// (go run ./cmd/modgen > modules_gen_test.go, from bench/).
func TestGeneratedFileUpToDate(t *testing.T) {
	var want bytes.Buffer
	generate(&want)
	got, err := os.ReadFile("../../modules_gen_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("bench/modules_gen_test.go (%d bytes) is not what cmd/modgen writes (%d bytes): "+
			"run `go run ./cmd/modgen > modules_gen_test.go` in bench/ and commit it", len(got), want.Len())
	}
}
