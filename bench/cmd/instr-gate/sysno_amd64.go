package main

// System call numbers processIdle looks for (linux/amd64).
const (
	sysNanosleep   = "35"
	sysFutex       = "202"
	sysEpollWait   = "232"
	sysEpollPwait  = "281"
	sysEpollPwait2 = "441"
)
