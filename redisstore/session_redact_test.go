package redisstore

import (
	"context"
	"strings"
	"testing"
)

// OpenSessionStore's errors never show the URL's password (url.Parse's errors quote
// the whole URL).
func TestOpenErrorHidesPassword(t *testing.T) {
	for _, u := range []string{
		"redis://:s3cret@127.0.0.1:bad/0",
		"redis://user:s3cret@127.0.0.1:6379/notadb",
		"rediss://s3cret@[::1/0",
	} {
		_, err := OpenSessionStore(context.Background(), u)
		if err == nil {
			t.Errorf("%s: opened", u)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error shows the password: %v", u, err)
		}
	}
}
