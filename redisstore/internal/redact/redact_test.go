package redact

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestDSN(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://app:s3cret@db:5432/app?sslmode=disable", "postgres://app:xxxxx@db:5432/app?sslmode=disable"},
		{"postgresql://app@db/app", "postgresql://app@db/app"},
		{"postgres://u:a@host/app", "postgres://u:xxxxx@host/app"}, // a short password, replaced where it is only
		{"postgres://app:@db/app", "postgres://app:@db/app"},
		{"postgres://db/app?user=app&password=s3cret&sslmode=disable", "postgres://db/app?user=app&password=xxxxx&sslmode=disable"},
		{"postgres://db/app?sslpassword=k3y", "postgres://db/app?sslpassword=xxxxx"},
		{"postgres://app:p%40ss%2Fw@db/app", "postgres://app:xxxxx@db/app"},
		{"postgres://app:pa/ss?w@rd@db/app", "postgres://app:xxxxx@db/app"}, // unparsable: still hidden
		{"redis://:s3cret@cache:6379/0", "redis://:xxxxx@cache:6379/0"},
		{"redis://user:s3cret@cache:6379/0", "redis://user:xxxxx@cache:6379/0"},
		{"rediss://s3cret@cache:6380", "rediss://xxxxx@cache:6380"},
		{"redis://cache:6379/0", "redis://cache:6379/0"},
		{"host=db user=app password=s3cret dbname=app", "host=db user=app password=xxxxx dbname=app"},
		{"host=db password = s3cret dbname=app", "host=db password = xxxxx dbname=app"},
		{"host=db password='s3 cr\\'et' dbname=app", "host=db password=xxxxx dbname=app"},
		{"password=s3cret", "password=xxxxx"},
		{"PASSWORD=s3cret host=db", "PASSWORD=xxxxx host=db"},
		{"host=db user=app", "host=db user=app"},
		{"sqlite:./data.db", "sqlite:./data.db"},
		{"memory", "memory"},
		{"", ""},
	} {
		if got := DSN(tc.in); got != tc.want {
			t.Errorf("DSN(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Error hides the password wherever a library's message quotes it: url.Parse
// quotes the whole URL, percent-encoded or not.
func TestError(t *testing.T) {
	raw := "redis://:s3cr%65t@cache:bad/0"
	//lint:ignore SA1007 the URL is bad on purpose: its parse error quotes it
	_, perr := url.Parse(raw)
	if perr == nil || !strings.Contains(perr.Error(), "s3cr%65t") {
		t.Fatalf("url.Parse no longer quotes the URL: %v", perr)
	}
	err := Error(perr, raw)
	if strings.Contains(err.Error(), "s3cr") || !strings.Contains(err.Error(), Mask) {
		t.Errorf("Error: %q", err)
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Error("errors.As does not see the url.Error")
	}
	decoded := errors.New("auth failed for password s3cret")
	if got := Error(decoded, raw).Error(); strings.Contains(got, "s3cret") {
		t.Errorf("decoded password kept: %q", got)
	}
	plain := errors.New("connection refused")
	if Error(plain, raw) != plain {
		t.Error("an error without the password was wrapped")
	}
	if Error(nil, raw) != nil {
		t.Error("Error(nil) is not nil")
	}
	kv := errors.New(`cannot parse "host=db password='a b'": bad`)
	if got := Error(kv, "host=db password='a b'").Error(); strings.Contains(got, "a b") {
		t.Errorf("quoted key/value password kept: %q", got)
	}
}
