#include "textflag.h"

// func valgrindRequest(args *[6]uintptr) uintptr
//
// Valgrind's client request (valgrind.h, amd64): RAX points to the request
// and its arguments, RDX holds the result (0 when not under valgrind). The
// four rotations of RDI (3+13+61+51 = 128 bits, so RDI is unchanged) and the
// XCHGQ BX, BX are the byte sequence valgrind recognises; a real CPU runs
// them as no-ops. Written as bytes so that the assembler cannot choose
// another encoding.
TEXT ·valgrindRequest(SB), NOSPLIT, $0-16
	MOVQ args+0(FP), AX
	MOVQ $0, DX
	BYTE $0x48; BYTE $0xc1; BYTE $0xc7; BYTE $0x03 // ROLQ $3, DI
	BYTE $0x48; BYTE $0xc1; BYTE $0xc7; BYTE $0x0d // ROLQ $13, DI
	BYTE $0x48; BYTE $0xc1; BYTE $0xc7; BYTE $0x3d // ROLQ $61, DI
	BYTE $0x48; BYTE $0xc1; BYTE $0xc7; BYTE $0x33 // ROLQ $51, DI
	BYTE $0x48; BYTE $0x87; BYTE $0xdb             // XCHGQ BX, BX
	MOVQ DX, ret+8(FP)
	RET
