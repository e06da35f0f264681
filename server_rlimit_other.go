//go:build !unix

package plinth

func fileLimit() int { return 0 }
