package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// procSample is a process's CPU time and peak RSS at one moment.
type procSample struct {
	at     time.Time
	cpu    time.Duration // user + system
	hwmKiB int64         // VmHWM: the peak resident set so far
}

// clockTick is USER_HZ, the unit of /proc/PID/stat times: 100 on every
// Linux architecture Go supports.
const clockTick = 100

// sampleProc reads /proc/PID/stat (utime, stime) and /proc/PID/status (VmHWM).
func sampleProc(pid int) (procSample, error) {
	s := procSample{at: time.Now()}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return s, err
	}
	cpu, err := parseStat(raw)
	if err != nil {
		return s, err
	}
	s.cpu = cpu
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	s.hwmKiB = parseHWM(status)
	return s, nil
}

// parseStat returns utime+stime from a /proc/PID/stat line. The command
// name (field 2) may hold spaces and parentheses: fields are counted after
// its last ')'.
func parseStat(raw []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/PID/stat: %q", raw)
	}
	f := strings.Fields(string(raw[i+1:]))
	// After the name: state(3) ppid pgrp session tty_nr tpgid flags minflt
	// cminflt majflt cmajflt utime(14) stime(15).
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/PID/stat: %q", raw)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/PID/stat times: %q %q", f[11], f[12])
	}
	return time.Duration(ut+st) * time.Second / clockTick, nil
}

// parseHWM returns VmHWM in KiB from /proc/PID/status, 0 when absent.
func parseHWM(status []byte) int64 {
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
