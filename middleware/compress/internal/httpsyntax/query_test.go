package httpsyntax

import (
	"net/url"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/racetest"
)

func TestLookupQuery(t *testing.T) {
	for _, tt := range []struct {
		q, name string
		want    string
		ok      bool
	}{
		{"a=1&b=2", "b", "2", true},
		{"a=1&a=2", "a", "1", true},
		{"a", "a", "", true},
		{"a=", "a", "", true},
		{"=x", "", "x", true},
		{"", "a", "", false},
		{"a=1", "b", "", false},
		{"a=1", "A", "", false},
		{"b=x+y%21", "b", "x y!", true},
		{"x+y=1", "x y", "1", true},
		{"x%20y=1", "x y", "1", true},
		{"%61=1", "a", "1", true},
		{"%6=1&a=2", "a", "2", true},
		{"a%=1&a=2", "a", "2", true},
		{"a=%zz&a=ok", "a", "ok", true},
		{"a=1;b=2&a=3", "a", "3", true},
		{"a=1&;&a=3", "a", "1", true},
		{"&&a=1&", "a", "1", true},
		{"ab=1&a=2", "a", "2", true},
		{"a=1=2", "a", "1=2", true},
		{"%C3%A9=1", "é", "1", true},
		{"a%2=1&a%25=2", "a%", "2", true},
	} {
		got, ok := LookupQuery(tt.q, tt.name)
		if got != tt.want || ok != tt.ok {
			t.Errorf("LookupQuery(%q, %q) = %q, %v; want %q, %v", tt.q, tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestUnescapeQuery(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"plain", "plain", true},
		{"a+b", "a b", true},
		{"%41%2b", "A+", true},
		{"%4", "", false},
		{"%zz", "", false},
		{"", "", true},
	} {
		got, ok := UnescapeQuery(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("UnescapeQuery(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestLookupQueryAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	q := "utm_source=x&page%5Bsize%5D=50&sort=-created&q=caf%C3%A9+au+lait"
	for _, tt := range []struct {
		name, want string
		budget     float64
	}{
		{"sort", "-created", 0},
		{"page[size]", "50", 0}, // escaped key, plain value
		{"missing", "", 0},
		{"q", "café au lait", 1}, // the unescaped value
	} {
		got := testing.AllocsPerRun(200, func() {
			if v, _ := LookupQuery(q, tt.name); v != tt.want {
				t.Fatalf("LookupQuery(%q) = %q, want %q", tt.name, v, tt.want)
			}
		})
		if got != tt.budget {
			t.Errorf("LookupQuery(%q): %v allocations, want %v", tt.name, got, tt.budget)
		}
	}
}

// FuzzLookupQuery checks LookupQuery against url.ParseQuery.
func FuzzLookupQuery(f *testing.F) {
	for _, s := range [][2]string{{"a=1&b=2", "b"}, {"a%20b=c+d", "a b"}, {"a=%zz&a=1", "a"}, {"x;y=1&x=2", "x"},
		{"%=1&=2", ""}, {"a%2=1&a%25=2", "a%"}, {"k=v", "k"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, q, name string) {
		if strings.Count(q, "&") >= 1000 {
			return // ParseQuery's limit on the number of pairs
		}
		vals, _ := url.ParseQuery(q)
		want, wantOK := "", false
		if vs, ok := vals[name]; ok {
			want, wantOK = vs[0], true
		}
		got, ok := LookupQuery(q, name)
		if got != want || ok != wantOK {
			t.Fatalf("LookupQuery(%q, %q) = %q, %v; url.ParseQuery gives %q, %v", q, name, got, ok, want, wantOK)
		}
		if u, ok := UnescapeQuery(q); ok {
			if want, err := url.QueryUnescape(q); err != nil || u != want {
				t.Fatalf("UnescapeQuery(%q) = %q, QueryUnescape %q, %v", q, u, want, err)
			}
		} else if _, err := url.QueryUnescape(q); err == nil {
			t.Fatalf("UnescapeQuery(%q) failed, QueryUnescape did not", q)
		}
	})
}
