package pgstore

import (
	"context"
	"strings"
	"testing"
)

// Open's errors never show the URL's password (pgx's parse errors quote
// the URL they failed on).
func TestOpenErrorHidesPassword(t *testing.T) {
	for _, u := range []string{
		"postgres://u:s3cret@127.0.0.1:bad/db",
		"postgres://u:s3cret@127.0.0.1/db?sslmode=bogus",
		"postgres://127.0.0.1/db?password=s3cret&sslmode=bogus",
	} {
		_, err := Open(context.Background(), u)
		if err == nil {
			t.Errorf("%s: opened", u)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error shows the password: %v", u, err)
		}
	}
}
