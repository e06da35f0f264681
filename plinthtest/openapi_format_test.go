package plinthtest

import (
	"strings"
	"testing"
)

// TestFormats checks each format's grammar at its edges: a value just
// inside a bound passes, one just outside fails with the reason.
func TestFormats(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	// host names of exactly n characters: labels of 63 (and a shorter last one)
	host := func(n int) string {
		var labels []string
		for n > 0 {
			l := min(n, 63)
			labels = append(labels, long(l))
			n -= l + 1 // the label and its dot
		}
		return strings.Join(labels, ".")
	}
	for _, tc := range []struct {
		format, value string
		want          string // "" valid, else in the reason
	}{
		// date-time: a T or t between a date and a time
		{"date-time", "2024-01-01T10:00:00Z", ""},
		{"date-time", "2024-01-01t10:00:00+01:00", ""},
		{"date-time", "2024-01-01 10:00:00Z", "no T between"},
		{"date-time", "2024-13-01T10:00:00Z", "not a calendar date"},
		{"date-time", "2024-01-01T10:00Z", "not a time"},
		// date: YYYY-MM-DD, a real day
		{"date", "2024-02-29", ""},
		{"date", "2000-01-31", ""},
		{"date", "2024-2-29", "not YYYY-MM-DD"},
		{"date", "2024-02-290", "not YYYY-MM-DD"},
		{"date", "2023-02-29", "not a calendar date"},
		// time: the bounds of each field
		{"time", "00:00:00Z", ""},
		{"time", "09:09:09z", ""},
		{"time", "23:59:59Z", ""},
		{"time", "19:48:37Z", ""},
		{"time", "24:00:00Z", "not a time"},
		{"time", "00:60:00Z", "not a time"},
		{"time", "00:00:61Z", "not a time"},
		{"time", "00:00:0Z", "not a time"},
		{"time", "0a:00:00Z", "not a time"},
		{"time", "00-00:00Z", "not a time"},
		{"time", "00:00-00Z", "not a time"},
		{"time", "00:00:00", "not a time"},
		{"time", "00:00:00X", "not a time"},
		// fractions: at least one digit, 0 and 9 both digits
		{"time", "12:00:00.0Z", ""},
		{"time", "12:00:00.9Z", ""},
		{"time", "12:00:00.123456789Z", ""},
		{"time", "12:00:00.Z", "not a time"},
		{"time", "12:00:00.5", "not a time"},
		// offsets: ±hh:mm, hh to 23, mm to 59
		{"time", "12:00:00+23:59", ""},
		{"time", "12:00:00-00:00", ""},
		{"time", "12:00:00+24:00", "not a time"},
		{"time", "12:00:00+00:60", "not a time"},
		{"time", "12:00:00*01:00", "not a time"},
		{"time", "12:00:00+01-00", "not a time"},
		{"time", "12:00:00+1:00", "not a time"},
		{"time", "12:00:00+01:000", "not a time"},
		{"time", "12:00:00+0a:00", "not a time"},
		{"time", "12:00:00+01:0a", "not a time"},
		// a leap second only at 23:59 UTC, offsets applied
		{"time", "23:59:60Z", ""},
		{"time", "23:59:60.5Z", ""},
		{"time", "15:59:60-08:00", ""},
		{"time", "18:29:60-05:30", ""},
		{"time", "05:29:60+05:30", ""},
		{"time", "00:59:60+01:00", ""}, // the day before in UTC
		{"time", "23:58:60Z", "leap second"},
		{"time", "22:59:60Z", "leap second"},
		{"time", "23:59:60+01:00", "leap second"},
		{"time", "23:59:60-01:00", "leap second"},
		{"time", "18:30:60-05:30", "leap second"},
		{"time", "18:29:60-05:29", "leap second"},
		{"time", "05:29:60-05:30", "leap second"},
		{"time", "00:00:60+00:01", ""}, // 23:59 UTC the day before
		// email: local part and domain
		{"email", "azAZ09!#$%&'*+-/=?^_`{|}~@example.com", ""},
		{"email", "a.b@example.com", ""},
		{"email", "a@b@example.com", "the local part has '@'"},
		{"email", "ada", "no @"},
		{"email", "@example.com", "empty local part"},
		{"email", ".a@example.com", "a dot at an end"},
		{"email", "a.@example.com", "a dot at an end"},
		{"email", "a..b@example.com", "two dots"},
		{"email", "a[b@example.com", "the local part has '['"},
		{"email", "a:b@example.com", "the local part has ':'"},
		{"email", "a b@example.com", "the local part has ' '"},
		{"email", `"@example.com`, `the local part has '"'`},
		{"email", `"a b"@example.com`, ""},
		{"email", `""@example.com`, ""},
		{"email", `"a\b"@example.com`, "a quoted local part"},
		{"email", `"a"b"@example.com`, "a quoted local part"},
		{"email", long(64) + "@example.com", ""},
		{"email", long(65) + "@example.com", "local part longer than 64"},
		{"email", "a@" + host(252), ""}, // 254 characters
		{"email", "a@" + host(253), "longer than 254"},
		{"email", "a@[192.0.2.1]", ""},
		{"email", "a@[IPv6:2001:db8::1]", ""},
		{"email", "a@[192.0.2.256]", "an address literal that is not an IPv4"},
		{"email", "a@[IPv6:2001:db8::g]", "an address literal that is not an IPv6"},
		{"email", "a@-example.com", "the domain is not a host name"},
		// hostname: labels of 1 to 63, 253 characters
		{"hostname", "azAZ09-b.example.com.", ""},
		{"hostname", host(253), ""},
		{"hostname", host(253) + ".", ""},
		{"hostname", host(254), "longer than 253"},
		{"hostname", long(63) + ".com", ""},
		{"hostname", long(64) + ".com", "not a host name"},
		{"hostname", "a..com", "not a host name"},
		{"hostname", "-a.com", "not a host name"},
		{"hostname", "a-.com", "not a host name"},
		{"hostname", "a_b.com", "not a host name"},
		{"hostname", "a[b.com", "not a host name"},
		{"hostname", "a`b.com", "not a host name"},
		{"hostname", "a{b.com", "not a host name"},
		{"hostname", "a@b.com", "not a host name"},
		{"hostname", "a/b.com", "not a host name"},
		{"hostname", "a:b.com", "not a host name"},
		// ipv4: four decimals 0 to 255, no leading zeros
		{"ipv4", "0.0.0.0", ""},
		{"ipv4", "255.255.255.255", ""},
		{"ipv4", "199.99.9.10", ""},
		{"ipv4", "256.0.0.0", "not an IPv4"},
		{"ipv4", "1.2.3", "not an IPv4"},
		{"ipv4", "1.2.3.4.5", "not an IPv4"},
		{"ipv4", "01.2.3.4", "not an IPv4"},
		{"ipv4", "1.2.3.", "not an IPv4"},
		{"ipv4", "1.2.3.a", "not an IPv4"},
		{"ipv4", "1.2.3./", "not an IPv4"},
		{"ipv4", "1.2.3.:", "not an IPv4"},
		// ipv6: a colon, no zone
		{"ipv6", "::1", ""},
		{"ipv6", "2001:db8::ff00:42:8329", ""},
		{"ipv6", "::ffff:192.0.2.1", ""},
		{"ipv6", "192.0.2.1", "not an IPv6"},
		{"ipv6", "fe80::1%eth0", "not an IPv6"},
		{"ipv6", "2001:db8::g", "not an IPv6"},
		// uri: absolute; an IPv6 host in brackets and without a zone
		{"uri", "https://example.com/a?b#c", ""},
		{"uri", "urn:isbn:0451450523", ""},
		{"uri", "http://[2001:db8::1]:8080/", ""},
		{"uri", "/relative", "a relative reference"},
		{"uri", "http://[::1%25eth0]/", "a host that is not an IPv6"},
		{"uri", "http://a b/", "not a URI"},
		{"uri", "%zz", "not a URI"},
		// uri-reference: relative allowed, no backslash
		{"uri-reference", "/relative?x#y", ""},
		{"uri-reference", "https://example.com/", ""},
		{"uri-reference", `/a\b`, `no \`},
		{"uri-reference", "%zz", "not a URI"},
		{"uri-reference", "http://[::1%25eth0]/", "a host that is not an IPv6"},
		// uuid: 8-4-4-4-12 hexadecimal digits, either case
		{"uuid", "01234567-89ab-cdef-ABCD-EF0123456789", ""},
		{"uuid", "00000000-0000-0000-0000-000000000000", ""},
		{"uuid", "0123456789abcdef-ABCD-EF0123456789", "not 8-4-4-4-12"},
		{"uuid", "01234567-89ab-cdef-ABCD-EF012345678", "not 8-4-4-4-12"},
		{"uuid", "01234567-89ab-cdef-ABCD-EF01234567890", "not 8-4-4-4-12"},
		{"uuid", "01234567089ab-cdef-ABCD-EF0123456789", "not 8-4-4-4-12"},
		{"uuid", "01234567-89ab0cdef-ABCD-EF0123456789", "not 8-4-4-4-12"},
		{"uuid", "01234567-89ab-cdef0ABCD-EF0123456789", "not 8-4-4-4-12"},
		{"uuid", "01234567-89ab-cdef-ABCD0EF0123456789", "not 8-4-4-4-12"},
		{"uuid", "g1234567-89ab-cdef-ABCD-EF0123456789", "not 8-4-4-4-12"},
		{"uuid", "G1234567-89ab-cdef-ABCD-EF0123456789", "not 8-4-4-4-12"},
		{"uuid", "/1234567-89ab-cdef-ABCD-EF0123456789", "not 8-4-4-4-12"},
		{"uuid", ":1234567-89ab-cdef-ABCD-EF0123456789", "not 8-4-4-4-12"},
		{"uuid", "`1234567-89ab-cdef-ABCD-EF0123456789", "not 8-4-4-4-12"},
		{"uuid", "@1234567-89ab-cdef-ABCD-EF0123456789", "not 8-4-4-4-12"},
		// an unknown format is an annotation only
		{"color", "not a colour", ""},
	} {
		got := checkFormat(tc.format, tc.value)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s %q: %q, want %q", tc.format, tc.value, got, tc.want)
		}
	}
}

// TestDigits reads runs of ASCII digits, and nothing else.
func TestDigits(t *testing.T) {
	for _, tc := range []struct {
		s  string
		n  int
		ok bool
	}{
		{"0", 0, true}, {"9", 9, true}, {"09", 9, true}, {"90", 90, true}, {"123", 123, true},
		{"", 0, false}, {"/", 0, false}, {":", 0, false}, {"1a", 0, false},
	} {
		if n, ok := digits(tc.s); n != tc.n || ok != tc.ok {
			t.Errorf("digits(%q) = %d, %v; want %d, %v", tc.s, n, ok, tc.n, tc.ok)
		}
	}
}
