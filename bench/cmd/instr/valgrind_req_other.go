//go:build !amd64

package main

const haveClientRequests = false
