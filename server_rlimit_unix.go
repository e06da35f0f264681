//go:build unix

package plinth

import "syscall"

// fileLimit returns the process's open-file limit (which Go raises to the
// hard limit at startup), or 0 if unknown.
func fileLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}
