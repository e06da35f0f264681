package jobs

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestConfigDefaults(t *testing.T) {
	c, err := Config{}.resolve(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.JobTimeout != DefaultJobTimeout || c.Role != RoleAll || len(c.Queues) != 1 || c.Queues[DefaultQueue] != DefaultConcurrency {
		t.Errorf("%+v", c)
	}
	c, err = Config{JobTimeout: 5 * time.Second, Role: RoleWeb, Queues: map[string]int{"mail": 2}}.resolve(env(map[string]string{"PLINTH_ROLE": "Worker", "PLINTH_JOB_TIMEOUT": "90s"}))
	if err != nil || c.JobTimeout != 90*time.Second || c.Role != RoleWorker || c.Queues["mail"] != 2 || len(c.Queues) != 1 {
		t.Errorf("overrides: %+v %v", c, err)
	}
	if !RoleAll.Workers() || !RoleWorker.Workers() || RoleWeb.Workers() {
		t.Error("Workers")
	}
	if got := envNames(); strings.Join(got, ",") != "PLINTH_JOB_TIMEOUT,PLINTH_ROLE" {
		t.Errorf("envNames: %v", got)
	}
}

// Every bad value is named, with a reason, in one error.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		env  map[string]string
		want []string
	}{
		{Config{}, map[string]string{"PLINTH_JOB_TIMEOUT": "off"}, []string{`PLINTH_JOB_TIMEOUT="off": a job timeout cannot be switched off`, "never rescued"}},
		{Config{}, map[string]string{"PLINTH_JOB_TIMEOUT": "-1"}, []string{`PLINTH_JOB_TIMEOUT="-1": a job timeout cannot be switched off`}},
		{Config{}, map[string]string{"PLINTH_JOB_TIMEOUT": "0"}, []string{`PLINTH_JOB_TIMEOUT="0": a job timeout cannot be switched off`}},
		{Config{}, map[string]string{"PLINTH_JOB_TIMEOUT": "-5s"}, []string{`PLINTH_JOB_TIMEOUT="-5s"`}},
		{Config{}, map[string]string{"PLINTH_JOB_TIMEOUT": "soon"}, []string{`PLINTH_JOB_TIMEOUT="soon": not a duration`}},
		{Config{}, map[string]string{"PLINTH_ROLE": "admin"}, []string{`PLINTH_ROLE="admin": want web, worker or all`}},
		{Config{JobTimeout: -1}, nil, []string{"Config.JobTimeout -1ns: a job timeout cannot be switched off"}},
		{Config{JobTimeout: 25 * time.Hour}, nil, []string{"Config.JobTimeout 25h0m0s: at most 24h0m0s"}},
		{Config{Role: "both"}, nil, []string{`Config.Role "both"`}},
		{Config{Queues: map[string]int{"a b": 1, "mail": 0}}, nil, []string{`queue name "a b"`, `Config.Queues["mail"] = 0`}},
		{Config{}, map[string]string{"PLINTH_ROLE": "x", "PLINTH_JOB_TIMEOUT": "off"}, []string{"PLINTH_ROLE", "PLINTH_JOB_TIMEOUT"}},
	} {
		_, err := tc.cfg.resolve(env(tc.env))
		if err == nil {
			t.Errorf("%+v %v: no error", tc.cfg, tc.env)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v %v: %q does not say %q", tc.cfg, tc.env, err, w)
			}
		}
	}
}

func TestStopMargin(t *testing.T) {
	for grace, want := range map[time.Duration]time.Duration{
		30 * time.Second: 2 * time.Second,
		10 * time.Second: time.Second,
		5 * time.Second:  500 * time.Millisecond,
		time.Minute:      2 * time.Second,
	} {
		if got := StopMargin(grace); got != want {
			t.Errorf("StopMargin(%s) = %s, want %s", grace, got, want)
		}
	}
}

// ResolveJobTimeout is ResolveConfig's job timeout: the same value, and the
// same error text, for every field and PLINTH_JOB_TIMEOUT; it reads no other
// variable.
func TestResolveJobTimeout(t *testing.T) {
	for _, field := range []time.Duration{0, 5 * time.Second, -1, MaxJobTimeout, MaxJobTimeout + 1} {
		for _, v := range []string{"", "90s", "0", "off", "none", "-1", "-5s", "soon", "25h"} {
			m := map[string]string{}
			if v != "" {
				m["PLINTH_JOB_TIMEOUT"] = v
			}
			c, cerr := Config{JobTimeout: field}.resolve(env(m))
			d, derr := ResolveJobTimeout(field, env(m))
			if fmt.Sprint(cerr) != fmt.Sprint(derr) || (cerr == nil && d != c.JobTimeout) {
				t.Errorf("field %v, PLINTH_JOB_TIMEOUT=%q: Config: %v %v; ResolveJobTimeout: %v %v", field, v, c.JobTimeout, cerr, d, derr)
			}
		}
	}
	if d, err := ResolveJobTimeout(0, env(map[string]string{"PLINTH_ROLE": "admin"})); err != nil || d != DefaultJobTimeout {
		t.Errorf("a bad PLINTH_ROLE: %v %v, want the default and no error", d, err)
	}
}
