//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package plinth

// soReusePort is SO_REUSEPORT on Linux's generic socket option numbering
// (asm-generic/socket.h), which every Linux port of Go but MIPS uses.
const soReusePort = 0xf
