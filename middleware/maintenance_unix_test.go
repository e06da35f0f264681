//go:build unix

package middleware

import (
	"syscall"
	"testing"
	"time"
)

// TestMaintenanceSignal sends SIGUSR1 to the test process itself and waits
// for the switch to flip, twice.
func TestMaintenanceSignal(t *testing.T) {
	m := NewMaintenance(MaintenanceConfig{Logger: discardLogger()})
	stop := m.NotifyOnSignal(syscall.SIGUSR1)
	defer stop()
	for _, want := range []bool{true, false} {
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		// Signal delivery is asynchronous: poll, with a generous bound
		// (this is a liveness bound, not a timing assertion).
		deadline := time.Now().Add(10 * time.Second)
		for m.Enabled() != want {
			if time.Now().After(deadline) {
				t.Fatalf("the switch did not become %v after SIGUSR1", want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	stop()
	stop() // idempotent
}
