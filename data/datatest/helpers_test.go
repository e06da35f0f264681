package datatest_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

type fatalTB struct {
	testing.TB
	msgs     []string
	cleanups []func()
	dir      string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
	runtime.Goexit()
}
func (f *fatalTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fatalTB) TempDir() string {
	if f.dir == "" {
		f.dir, _ = os.MkdirTemp("", "datatest")
		f.cleanups = append(f.cleanups, func() { os.RemoveAll(f.dir) })
	}
	return f.dir
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
