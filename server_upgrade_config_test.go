package plinth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestUpgradeConfig(t *testing.T) {
	cfg, err := Config{}.withEnv(func(string) (string, bool) { return "", false })
	if err != nil || cfg.Upgrade != "" || cfg.UpgradeTimeout != DefaultUpgradeTimeout || cfg.PIDFile != "" {
		t.Fatalf("defaults: %+v, %v", cfg, err)
	}
	env := map[string]string{"PLINTH_UPGRADE": "off", "PLINTH_UPGRADE_TIMEOUT": "5s", "PLINTH_PID_FILE": "/run/app.pid"}
	cfg, err = Config{Upgrade: "on"}.withEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil || cfg.Upgrade != "off" || cfg.UpgradeTimeout != 5*time.Second || cfg.PIDFile != "/run/app.pid" {
		t.Fatalf("from the environment: %+v, %v", cfg, err)
	}
	for _, bad := range []map[string]string{{"PLINTH_UPGRADE": "yes"}, {"PLINTH_UPGRADE_TIMEOUT": "0"}, {"PLINTH_UPGRADE_TIMEOUT": "soon"}} {
		_, err := Config{}.withEnv(func(k string) (string, bool) { v, ok := bad[k]; return v, ok })
		for k := range bad {
			if err == nil || !strings.Contains(err.Error(), k) {
				t.Errorf("%v: error %v, want one naming %s", bad, err, k)
			}
		}
	}
	if _, err := (Config{UpgradeTimeout: Off}).withEnv(func(string) (string, bool) { return "", false }); err == nil {
		t.Error("UpgradeTimeout: Off accepted; it cannot be off")
	}
}

func TestUpgradeOn(t *testing.T) {
	tty := func() bool { return true }
	noTTY := func() bool { return false }
	for _, c := range []struct {
		mode string
		term func() bool
		pid  int
		want bool
	}{
		{"", noTTY, 4242, upgradeSupported},
		{"", tty, 4242, false},
		{"", noTTY, 1, false}, // a container's init
		{"on", tty, 1, true},
		{"off", noTTY, 4242, false},
	} {
		if got := upgradeOn(Config{Upgrade: c.mode}, c.term, c.pid); got != c.want {
			t.Errorf("Upgrade %q, terminal %v, pid %d: on = %v, want %v", c.mode, c.term(), c.pid, got, c.want)
		}
	}
}

func TestPIDFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "app.pid")
	if err := writePIDFile(p, 1234); err != nil {
		t.Fatal(err)
	}
	if err := writePIDFile(p, 5678); err != nil { // over the old one
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "5678\n" {
		t.Fatalf("PID file holds %q", b)
	}
	removePIDFile(p, 1234) // no longer names it: left alone
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("removed a PID file naming another process: %v", err)
	}
	removePIDFile(p, 5678)
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("PID file naming this process not removed: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 0 {
		t.Fatalf("temporary files left: %v", entries)
	}
	if err := writePIDFile(filepath.Join(t.TempDir(), "missing", "app.pid"), 1); err == nil {
		t.Fatal("no error for a PID file in a missing directory")
	}
}
