//go:build !linux

package plinth

import (
	"errors"
	"syscall"
)

func reusePort(network, address string, c syscall.RawConn) error {
	return errors.New("plinth: ReusePort (SO_REUSEPORT) is only supported on Linux")
}
