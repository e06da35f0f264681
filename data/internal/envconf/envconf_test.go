package envconf

import (
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestZeroRule: "0" means off, zero or an error, as the setting says;
// negative numbers are refused; a blank variable is unset.
func TestZeroRule(t *testing.T) {
	e := New(env(map[string]string{"OFF": "0", "VAL": "0s", "REF": "0", "NEG": "-1s", "BLANK": "  "}))
	off, val, ref, neg, blank := time.Second, time.Second, time.Second, time.Second, time.Second
	e.Duration("OFF", &off, ZeroOff)
	e.Duration("VAL", &val, ZeroValue)
	e.Duration("REF", &ref, ZeroRefused)
	e.Duration("NEG", &neg, ZeroOff)
	e.Duration("BLANK", &blank, ZeroRefused)
	if off != Off || val != 0 || ref != time.Second || neg != time.Second || blank != time.Second {
		t.Errorf("off %v, val %v, ref %v, neg %v, blank %v", off, val, ref, neg, blank)
	}
	err := e.Err("pkg")
	if err == nil || !strings.HasPrefix(err.Error(), "pkg: bad configuration:\n\t") {
		t.Fatalf("error %v", err)
	}
	for _, name := range []string{"REF", "NEG"} {
		if !strings.Contains(err.Error(), name+"=") {
			t.Errorf("the error does not name %s: %v", name, err)
		}
	}
	if strings.Contains(err.Error(), "OFF=") || strings.Contains(err.Error(), "BLANK=") {
		t.Errorf("good values reported: %v", err)
	}
	if got := strings.Join(e.Names(), ","); got != "OFF,VAL,REF,NEG,BLANK" {
		t.Errorf("names %s", got)
	}
}

func TestGetters(t *testing.T) {
	e := New(env(map[string]string{
		"SIZE": "2MiB", "SIZE_B": "512B", "SIZE_K": "64 KiB", "SIZE_G": "1GiB", "SIZE_BAD": "2MB", "SIZE_OVER": "9999999999GiB",
		"INT": "12", "INT_BAD": "1.5", "BOOL": "TRUE", "BOOL_BAD": "yes",
		"LIST": " a, ,b ,", "LIST_EMPTY": ",", "ADDR": "127.0.0.1:0", "ADDR6": "[::1]:80", "ADDR_BAD": "localhost", "ADDR_PORT": ":70000",
		"STR": "  x  ",
	}))
	var size, sizeB, sizeK, sizeG, sizeBad, sizeOver int64
	e.Size("SIZE", &size, ZeroRefused)
	e.Size("SIZE_B", &sizeB, ZeroRefused)
	e.Size("SIZE_K", &sizeK, ZeroRefused)
	e.Size("SIZE_G", &sizeG, ZeroRefused)
	e.Size("SIZE_BAD", &sizeBad, ZeroRefused)
	e.Size("SIZE_OVER", &sizeOver, ZeroRefused)
	if size != 2<<20 || sizeB != 512 || sizeK != 64<<10 || sizeG != 1<<30 || sizeBad != 0 || sizeOver != 0 {
		t.Errorf("sizes %d %d %d %d %d %d", size, sizeB, sizeK, sizeG, sizeBad, sizeOver)
	}
	var n, nBad int
	e.Int("INT", &n, ZeroRefused)
	e.Int("INT_BAD", &nBad, ZeroRefused)
	var b, bBad bool
	e.Bool("BOOL", &b)
	e.Bool("BOOL_BAD", &bBad)
	var list, empty, unset []string
	e.List("LIST", &list)
	e.List("LIST_EMPTY", &empty)
	e.List("UNSET", &unset)
	var addr, addr6, addrBad, addrPort, str string
	e.Addr("ADDR", &addr)
	e.Addr("ADDR6", &addr6)
	e.Addr("ADDR_BAD", &addrBad)
	e.Addr("ADDR_PORT", &addrPort)
	e.String("STR", &str)
	if n != 12 || !b || strings.Join(list, "|") != "a|b" || empty == nil || len(empty) != 0 || unset != nil ||
		addr != "127.0.0.1:0" || addr6 != "[::1]:80" || addrBad != "" || addrPort != "" || str != "x" {
		t.Errorf("n %d b %v list %q empty %v unset %v addr %q %q %q %q str %q", n, b, list, empty, unset, addr, addr6, addrBad, addrPort, str)
	}
	want := []string{"SIZE_BAD", "SIZE_OVER", "INT_BAD", "BOOL_BAD", "ADDR_BAD", "ADDR_PORT"}
	if len(e.Errs()) != len(want) {
		t.Errorf("%d errors, want %d: %q", len(e.Errs()), len(want), e.Errs())
	}
	for _, name := range want {
		if !strings.Contains(e.Err("pkg").Error(), name+"=") {
			t.Errorf("%s not named", name)
		}
	}
	if New(nil).Err("x") != nil {
		t.Error("an error without messages")
	}
}

func TestUnknownAndNearest(t *testing.T) {
	known := []string{"PLINTH_MAX_BODY_BYTES", "PLINTH_MAX_HEADER_BYTES", "PLINTH_ADDR", "PLINTH_HANDLER_TIMEOUT"}
	got := Unknown([]string{
		"PATH=/bin", "PLINTH_ADDR=:1", "PLINTH_TEST_REDIS=x", "PLINTH_MAX_BODY_BYTE=1", "PLINTH_ADR=:2",
		"PLINTH_HANDLER_TIMOEUT=1s", "PLINTH_NOTHING_LIKE_IT=1", "PLINTH_MAX_BODY_BYTE=2",
	}, known)
	want := [][2]string{
		{"PLINTH_ADR", "PLINTH_ADDR"},
		{"PLINTH_HANDLER_TIMOEUT", "PLINTH_HANDLER_TIMEOUT"},
		{"PLINTH_MAX_BODY_BYTE", "PLINTH_MAX_BODY_BYTES"},
		{"PLINTH_NOTHING_LIKE_IT", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: got %q, want %q", i, got[i], want[i])
		}
	}
}

// TestNamesOf: the names a read function asks for, in its order, whatever
// the process's environment holds (a bad value there is neither seen nor
// an error).
func TestNamesOf(t *testing.T) {
	t.Setenv("PLINTH_ENVCONF_TEST_SECONDS", "soon")
	var seen []string
	got := NamesOf(func(r *Reader) {
		var d time.Duration
		var s string
		r.Duration("PLINTH_ENVCONF_TEST_SECONDS", &d, ZeroOff)
		r.String("PLINTH_ENVCONF_TEST_NAME", &s)
		if d != 0 || s != "" {
			seen = append(seen, d.String(), s)
		}
		if len(r.Errs()) != 0 {
			seen = append(seen, r.Errs()...)
		}
	})
	if want := "PLINTH_ENVCONF_TEST_SECONDS,PLINTH_ENVCONF_TEST_NAME"; strings.Join(got, ",") != want {
		t.Errorf("NamesOf = %v, want %s", got, want)
	}
	if seen != nil {
		t.Errorf("the read function saw values or errors: %q", seen)
	}
}
