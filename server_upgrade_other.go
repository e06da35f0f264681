//go:build !unix

package plinth

import (
	"net"
	"time"
)

const upgradeSupported = false

func stdinTerminal() bool { return true }

func startChild(string, []net.Listener, time.Duration, func(func())) (int, error) {
	return 0, errUpgradeUnsupported
}
