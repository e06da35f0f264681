//go:build !unix

package main

import "os/exec"

// ownProcessGroup does nothing on this system.
func ownProcessGroup(cmd *exec.Cmd) {}
