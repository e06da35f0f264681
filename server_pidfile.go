package plinth

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// writePIDFile writes pid to path atomically: a temporary file in the same
// directory, renamed over path, so that a reader sees the old PID or the
// new one, never a partial file.
func writePIDFile(path string, pid int) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(strconv.Itoa(pid) + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// removePIDFile removes path if it names pid: after an upgrade it names the
// new process, which the old one must leave alone.
func removePIDFile(path string, pid int) {
	b, err := os.ReadFile(path)
	if err != nil || string(bytes.TrimSpace(b)) != strconv.Itoa(pid) {
		return
	}
	os.Remove(path)
}
