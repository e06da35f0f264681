package data

import (
	"context"
	"strings"
	"testing"
)

// A key/value DSN, a password in the query and a malformed URL never show
// their password in Open's errors or in Redact.
func TestOpenErrorsHidePasswords(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{
		"host=127.0.0.1 port=1 user=u password=s3cret dbname=db",
		"host=127.0.0.1 password='s3 cret' dbname=db",
		"postgres://127.0.0.1:1/db?user=u&password=s3cret&connect_timeout=1",
		"postgres://u:s3cret@127.0.0.1:bad/db",
		"postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=1&sslmode=bogus",
	} {
		_, err := open(ctx, Config{URL: u}, noEnv)
		if err == nil {
			t.Errorf("%s: opened", u)
			continue
		}
		if strings.Contains(err.Error(), "s3") {
			t.Errorf("%s: the error shows the password: %v", u, err)
		}
		if r := Redact(u); strings.Contains(r, "s3") {
			t.Errorf("Redact(%q) = %q", u, r)
		}
	}
}
