package compress

import (
	"strings"
	"testing"
)

func TestNegotiate(t *testing.T) {
	all := []string{Brotli, Zstd, Gzip}
	onlyGzip := []string{Gzip}
	gzipFirst := []string{Gzip, Zstd, Brotli}
	tests := []struct {
		name      string
		header    []string // field lines; nil: no field
		names     []string // server order; nil: all
		want      string   // coding, "" for none
		forbidden bool     // identity forbidden
	}{
		{name: "no field", header: nil, want: ""},
		{name: "empty field", header: []string{""}, want: ""},
		{name: "blank field", header: []string{"  ,  , "}, want: ""},
		{name: "gzip", header: []string{"gzip"}, want: Gzip},
		{name: "browser", header: []string{"gzip, deflate, br, zstd"}, want: Brotli},
		{name: "server order breaks ties", header: []string{"gzip, zstd"}, want: Zstd},
		{name: "server order configurable", header: []string{"br, gzip, zstd"}, names: gzipFirst, want: Gzip},
		{name: "higher q wins over server order", header: []string{"br;q=0.5, gzip;q=0.8"}, want: Gzip},
		{name: "q=0 forbids", header: []string{"br;q=0, gzip"}, want: Gzip},
		{name: "all forbidden", header: []string{"br;q=0, gzip;q=0, zstd;q=0"}, want: ""},
		{name: "star", header: []string{"*"}, want: Brotli},
		{name: "star with q", header: []string{"*;q=0.5"}, want: Brotli},
		{name: "star with exclusion", header: []string{"*, br;q=0"}, want: Zstd},
		{name: "explicit beats star", header: []string{"*;q=0.1, gzip;q=0.9"}, want: Gzip},
		{name: "star zero forbids others and identity", header: []string{"gzip, *;q=0"}, want: Gzip, forbidden: true},
		{name: "star zero with identity allowed", header: []string{"gzip, *;q=0, identity"}, want: Gzip},
		{name: "star zero alone", header: []string{"*;q=0"}, want: "", forbidden: true},
		{name: "identity only", header: []string{"identity"}, want: ""},
		{name: "identity forbidden", header: []string{"gzip, identity;q=0"}, want: Gzip, forbidden: true},
		{name: "identity forbidden, nothing else", header: []string{"identity;q=0"}, want: "", forbidden: true},
		{name: "case insensitive", header: []string{"GZIP;Q=0.5, Br;q=0.4"}, want: Gzip},
		{name: "whitespace", header: []string{" \tgzip \t; q = 0.5 ,br ;q=0.6\t"}, want: Brotli},
		{name: "x-gzip", header: []string{"x-gzip"}, want: Gzip},
		{name: "x-gzip not offered without gzip", header: []string{"x-gzip"}, names: []string{Brotli}, want: ""},
		{name: "unknown only", header: []string{"compress, deflate"}, want: ""},
		{name: "only offered", header: []string{"br, zstd, gzip"}, names: onlyGzip, want: Gzip},
		{name: "several field lines", header: []string{"br;q=0", "gzip"}, want: Gzip},
		{name: "repeated coding: q=0 refuses", header: []string{"br, br;q=0, gzip"}, want: Gzip},
		{name: "repeated coding: the first weight counts", header: []string{"br;q=0.9, br;q=0.5, gzip;q=0.8"}, want: Brotli},
		{name: "q=1.000", header: []string{"gzip;q=1.000, br;q=0.999"}, want: Gzip},
		{name: "q=0.001", header: []string{"gzip;q=0.001"}, want: Gzip},
		{name: "q=0.000 forbids", header: []string{"gzip;q=0.000"}, want: ""},
		{name: "other parameters ignored", header: []string{"gzip;level=9;q=0.5"}, want: Gzip},
		{name: "empty parameter ignored", header: []string{"gzip;;q=0.5;"}, want: Gzip},

		// Malformed elements are ignored, the rest still counts.
		{name: "q above 1", header: []string{"br;q=1.5, gzip"}, want: Gzip},
		{name: "q 1.1", header: []string{"br;q=1.1, gzip"}, want: Gzip},
		{name: "q four decimals", header: []string{"br;q=0.1234, gzip"}, want: Gzip},
		{name: "q negative", header: []string{"br;q=-1, gzip"}, want: Gzip},
		{name: "q not a number", header: []string{"br;q=high, gzip"}, want: Gzip},
		{name: "q empty", header: []string{"br;q=, gzip"}, want: Gzip},
		{name: "q 0.", header: []string{"br;q=0., gzip"}, want: Gzip},
		{name: "q .5", header: []string{"br;q=.5, gzip"}, want: Gzip},
		{name: "parameter without value", header: []string{"br;q, gzip"}, want: Gzip},
		{name: "parameter without name", header: []string{"br;=1, gzip"}, want: Gzip},
		{name: "bad token", header: []string{"b r, gzip"}, want: Gzip},
		{name: "quoted", header: []string{`"br", gzip`}, want: Gzip},
		{name: "control characters", header: []string{"br\x00, \x7fgzip, zstd"}, want: Zstd},
		{name: "only semicolons", header: []string{";;;"}, want: ""},
		{name: "malformed q=0 does not forbid", header: []string{"identity;q=zero, gzip"}, want: Gzip},
		{name: "non-ASCII", header: []string{"gzíp, br"}, want: Brotli},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names := tt.names
			if names == nil {
				names = all
			}
			idx, forbidden := negotiate(tt.header, names)
			got := ""
			if idx >= 0 {
				got = names[idx]
			}
			if got != tt.want || forbidden != tt.forbidden {
				t.Errorf("negotiate(%q, %v) = %q, identity forbidden %v; want %q, %v",
					tt.header, names, got, forbidden, tt.want, tt.forbidden)
			}
		})
	}
}

func TestNegotiateDoesNotAllocate(t *testing.T) {
	h := []string{"gzip;q=0.8, deflate, br;q=0.9, zstd;q=0.7, identity;q=0.1, *;q=0"}
	names := DefaultEncodings()
	allocs := testing.AllocsPerRun(100, func() {
		if idx, _ := negotiate(h, names); idx < 0 || names[idx] != Brotli {
			t.Fatalf("picked %d", idx)
		}
	})
	if allocs != 0 {
		t.Errorf("negotiate allocates %v times, want 0", allocs)
	}
}

// FuzzNegotiate checks that any field value is handled without a panic
// and that the pick is acceptable: never a coding the field gave q=0 by
// its own well-formed entry.
func FuzzNegotiate(f *testing.F) {
	for _, s := range []string{"gzip", "br;q=0.5, gzip", "*;q=0", "identity;q=0", " ,;=", "gzip;q=1.0000", "x-gzip;q=0"} {
		f.Add(s)
	}
	names := DefaultEncodings()
	f.Fuzz(func(t *testing.T, s string) {
		idx, _ := negotiate([]string{s}, names)
		if idx < -1 || idx >= len(names) {
			t.Fatalf("index %d out of range", idx)
		}
		if idx >= 0 && strings.Contains(strings.ToLower(s), names[idx]+";q=0,") {
			// Not a proof (an earlier entry may be malformed), only a
			// tripwire for the common case.
			if strings.HasPrefix(strings.ToLower(s), names[idx]+";q=0,") {
				t.Fatalf("%q: picked %s, which it forbids", s, names[idx])
			}
		}
	})
}
