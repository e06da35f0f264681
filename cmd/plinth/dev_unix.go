//go:build unix && !linux

package main

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the program in a process group of its own, so that
// a Ctrl-C in the terminal reaches plinth dev alone, which then stops the
// program with one SIGTERM (two signals would make Plinth's Run exit
// without draining).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
