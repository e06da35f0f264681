package main

const haveClientRequests = true

//go:noescape
func valgrindRequest(args *[6]uintptr) uintptr
