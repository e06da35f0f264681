package web

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// A store URL's password, in the userinfo, the query or a key/value DSN,
// never reaches the error that names the URL, nor the wrapped opener's
// error.
func TestStoreURLErrorsHidePasswords(t *testing.T) {
	failing := func(_ context.Context, url string) (Store, error) {
		return nil, errors.New("cannot connect to " + url) // an opener that quotes its URL
	}
	for _, url := range []string{
		"postgres://db/app?user=u&password=s3cret",
		"postgres://u:s3cret@db/app",
		"host=db password=s3cret",
		"redis://:s3cret@cache:6379/0",
		"nope://u:s3cret@x",
	} {
		_, err := openStore(url, map[string]OpenStore{"postgres": failing, "redis": failing}, nil, false)
		if err == nil {
			t.Errorf("%s: opened", url)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error shows the password: %v", url, err)
		}
	}
}
