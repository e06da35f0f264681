package web

import "unsafe"

// stringBytes returns the bytes of s without copying them, for APIs that
// take a []byte they only read (AEAD associated data).
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
