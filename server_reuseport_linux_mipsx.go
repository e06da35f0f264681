//go:build linux && (mips || mipsle || mips64 || mips64le)

package plinth

// soReusePort is SO_REUSEPORT on Linux/MIPS (arch/mips/include/uapi/asm/socket.h).
const soReusePort = 0x200
