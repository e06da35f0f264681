package plinth

import "syscall"

// reusePort sets SO_REUSEPORT, so that several listeners share one address
// and the kernel spreads connections among them. It uses the syscall
// package with the option's number (server_reuseport_linux_*.go) rather
// than golang.org/x/sys/unix, the largest package the core would
// otherwise bring into every App's cold build, for this one call.
func reusePort(network, address string, c syscall.RawConn) error {
	var serr error
	if err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, soReusePort, 1)
	}); err != nil {
		return err
	}
	return serr
}
