package web_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/web"
)

func TestSessionsConfigEnvironment(t *testing.T) {
	key := base64.StdEncoding.EncodeToString(make([]byte, 32))
	opened := ""
	openers := map[string]web.OpenStore{
		"redis": func(_ context.Context, url string) (web.Store, error) {
			opened = url
			return web.NewMemoryStore(web.MemoryStoreConfig{}), nil
		},
		"broken": func(context.Context, string) (web.Store, error) { return nil, errors.New("bad database name") },
	}
	cases := []struct {
		env     map[string]string
		wantErr string // "" for success
		store   string // the store's type, on success
	}{
		{map[string]string{}, "", "*web.MemoryStore"},
		{map[string]string{"PLINTH_SESSION_STORE": "memory"}, "", "*web.MemoryStore"},
		{map[string]string{"PLINTH_SESSION_STORE": "cookie", "PLINTH_SESSION_KEYS": key}, "", "*web.CookieStore"},
		{map[string]string{"PLINTH_SESSION_STORE": "cookie", "PLINTH_SESSION_KEYS": key + ", " + key}, "", "*web.CookieStore"},
		{map[string]string{"PLINTH_SESSION_STORE": "cookie"}, "PLINTH_SESSION_KEYS", ""},
		{map[string]string{"PLINTH_SESSION_STORE": "cookie", "PLINTH_SESSION_KEYS": "c2hvcnQ="}, "key 1: 5 bytes, want 32", ""},
		{map[string]string{"PLINTH_SESSION_STORE": "cookie", "PLINTH_SESSION_KEYS": "!!"}, "not base64", ""},
		{map[string]string{"PLINTH_SESSION_STORE": "redis://:secret@127.0.0.1:6379/0"}, "", "*web.MemoryStore"},
		{map[string]string{"PLINTH_SESSION_STORE": "postgres://u:pw@db/x"}, `no store opener for "postgres"`, ""},
		{map[string]string{"PLINTH_SESSION_STORE": "broken://u:hunter2@x"}, "bad database name", ""},
		{map[string]string{"PLINTH_SESSION_STORE": "files"}, "want memory, cookie or a URL", ""},
		{map[string]string{"PLINTH_SESSION_IDLE_TIMEOUT": "soon"}, "PLINTH_SESSION_IDLE_TIMEOUT", ""},
		{map[string]string{"PLINTH_SESSION_LIFETIME": "-1h"}, "PLINTH_SESSION_LIFETIME", ""},
		{map[string]string{"PLINTH_SESSION_IDLE_TIMEOUT": "bad", "PLINTH_SESSION_LIFETIME": "bad"}, "PLINTH_SESSION_LIFETIME", ""},
	}
	for _, tc := range cases {
		t.Run(strings.Join(mapPairs(tc.env), ","), func(t *testing.T) {
			for _, k := range []string{"PLINTH_SESSION_STORE", "PLINTH_SESSION_KEYS", "PLINTH_SESSION_IDLE_TIMEOUT", "PLINTH_SESSION_LIFETIME"} {
				t.Setenv(k, tc.env[k])
			}
			s, err := web.NewSessions(web.SessionsConfig{Openers: openers})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), ":pw@") {
					t.Errorf("error %q shows a password", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := typeName(s.Store()); got != tc.store {
				t.Errorf("store %s, want %s", got, tc.store)
			}
		})
	}
	if opened != "redis://:secret@127.0.0.1:6379/0" {
		t.Errorf("the redis opener got %q", opened)
	}
	// The environment overrides a store given in code.
	t.Setenv("PLINTH_SESSION_STORE", "cookie")
	t.Setenv("PLINTH_SESSION_KEYS", key)
	s, err := web.NewSessions(web.SessionsConfig{Store: web.NewMemoryStore(web.MemoryStoreConfig{})})
	if err != nil || typeName(s.Store()) != "*web.CookieStore" {
		t.Errorf("environment over code: %v %v", err, s)
	}
	t.Setenv("PLINTH_SESSION_STORE", "")
	if _, err := web.NewSessions(web.SessionsConfig{CookieName: "bad name"}); err == nil {
		t.Error("a bad cookie name was accepted")
	}
}

func mapPairs(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

func typeName(v any) string {
	switch v.(type) {
	case *web.MemoryStore:
		return "*web.MemoryStore"
	case *web.CookieStore:
		return "*web.CookieStore"
	}
	return "other"
}

// TestSessionsConfigOneError: the PLINTH_SESSION_* variables
// go through the shared reader: every bad value is named in one error, and
// "0" is refused where the setting cannot be off.
func TestSessionsConfigOneError(t *testing.T) {
	t.Setenv("PLINTH_SESSION_IDLE_TIMEOUT", "soon")
	t.Setenv("PLINTH_SESSION_LIFETIME", "0")
	t.Setenv("PLINTH_SESSION_STORE_TIMEOUT", "-1s")
	t.Setenv("PLINTH_SESSION_KEYS", "!!")
	t.Setenv("PLINTH_SESSION_STORE", "")
	_, err := web.NewSessions(web.SessionsConfig{CookieName: "bad name"})
	if err == nil {
		t.Fatal("bad values accepted")
	}
	if n := strings.Count(err.Error(), "bad configuration"); n != 1 {
		t.Errorf("want one error, got:\n%v", err)
	}
	for _, name := range []string{"PLINTH_SESSION_IDLE_TIMEOUT", "PLINTH_SESSION_LIFETIME", "PLINTH_SESSION_STORE_TIMEOUT", "PLINTH_SESSION_KEYS", "CookieName"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the error does not name %s:\n%v", name, err)
		}
	}
}

// TestSessionsDeclareTheirVariables: Attach declares the
// PLINTH_SESSION_* variables to the App, so that they are not reported as
// misspelled at start; a misspelled one is, with the right name.
func TestSessionsDeclareTheirVariables(t *testing.T) {
	t.Setenv("PLINTH_SESSION_IDLE_TIMEOUT", "1h")
	t.Setenv("PLINTH_SESSION_LIFETMIE", "2h")
	s, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	app := plinth.New()
	app.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	app.Config.ShutdownTimeout = time.Second
	s.Attach(app)
	ctx, cancel := context.WithCancel(t.Context())
	app.OnStart(func(context.Context) error { cancel(); return nil })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Serve(ctx, ln); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "PLINTH_SESSION_IDLE_TIMEOUT is not read") {
		t.Errorf("a variable the sessions read was reported:\n%s", out)
	}
	if !strings.Contains(out, "PLINTH_SESSION_LIFETMIE is not read") || !strings.Contains(out, "did you mean PLINTH_SESSION_LIFETIME?") {
		t.Errorf("the misspelled variable was not reported with its right name:\n%s", out)
	}
}
