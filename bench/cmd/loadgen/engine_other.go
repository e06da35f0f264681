//go:build !linux

package main

const defaultEngine = "go"

func runEpoll(rc *runCtx, stats []*connStats) { runGoroutines(rc, stats) }
