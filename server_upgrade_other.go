//go:build !unix

package plinth

import (
	"errors"
	"net"
	"time"
)

// errUpgradeUnsupported is the attempt's error where upgrades cannot work.
var errUpgradeUnsupported = errors.New("plinth: in-place upgrade is not supported on this system")

const upgradeSupported = false

func stdinTerminal() bool { return true }

func startChild(string, []net.Listener, time.Duration, func(func())) (int, error) {
	return 0, errUpgradeUnsupported
}
