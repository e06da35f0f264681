// Package envconf reads settings from the environment for the core and the
// Plinth modules (data, web, observe/metrics, observe/tracing): one set of
// parsers, one rule for what "0" means, and every bad value collected into
// one error, so that a deployment with three mistakes learns of the three at
// once.
//
// The rule: a blank variable is unset; "0" switches a setting off where it
// can be off (the field then holds Off, the value plinth.Off names), is the
// value 0 where 0 is the setting's default, and is refused otherwise.
// Negative numbers are refused: the environment says "off" with "0".
package envconf

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Off is the value a limit or a timeout holds when it is switched off; the
// core exports it as plinth.Off.
const Off = -1

// Zero says what "0" means for a setting.
type Zero int

const (
	// ZeroRefused: the setting cannot be switched off, and "0" is an error.
	ZeroRefused Zero = iota
	// ZeroOff: "0" switches the setting off (the destination gets Off).
	ZeroOff
	// ZeroValue: "0" is the value 0, the setting's default.
	ZeroValue
)

// Reader reads variables through a lookup function (os.LookupEnv, or a map
// in tests), collecting one message per bad value and the name of every
// variable it was asked for.
type Reader struct {
	lookup func(string) (string, bool)
	errs   []string
	names  []string
}

// New returns a Reader over lookup; nil means os.LookupEnv.
func New(lookup func(string) (string, bool)) *Reader {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	return &Reader{lookup: lookup}
}

// Lookup returns the trimmed value of name; an empty or blank value is
// unset. The name is recorded (Names) whether it is set or not.
func (r *Reader) Lookup(name string) (string, bool) {
	r.names = append(r.names, name)
	v, ok := r.lookup(name)
	v = strings.TrimSpace(v)
	return v, ok && v != ""
}

// Failf adds a message to the error Err returns. Messages name the
// variable (or the field) and the bad value.
func (r *Reader) Failf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// Names returns the variables asked for so far, in order: what a module
// declares to the App (App.DeclareEnv) so that they are not reported as
// misspelled.
func (r *Reader) Names() []string { return r.names }

// NamesOf returns the variables read asks for, in its order, running it
// over an empty environment (so that it sees no value and records no
// error): the names a module declares to the App with App.DeclareEnv when
// it is attached, computed from the one function that reads them, so the
// two cannot drift apart. data, jobs and web call it with their config's
// read method.
func NamesOf(read func(*Reader)) []string {
	r := New(func(string) (string, bool) { return "", false })
	read(r)
	return r.names
}

// Errs returns the messages collected so far.
func (r *Reader) Errs() []string { return r.errs }

// Err returns nil when every value was good, else one error listing every
// message, one per line, after "<pkg>: bad configuration:".
func (r *Reader) Err(pkg string) error {
	return Join(pkg, r.errs)
}

// Join is Err for messages gathered elsewhere.
func Join(pkg string, msgs []string) error {
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: bad configuration:\n\t%s", pkg, strings.Join(msgs, "\n\t"))
}

// String sets *dst to name's value when it is set.
func (r *Reader) String(name string, dst *string) {
	if v, ok := r.Lookup(name); ok {
		*dst = v
	}
}

// Duration reads a Go duration ("10s", "1m30s", "500ms"; "0" as zero
// says).
func (r *Reader) Duration(name string, dst *time.Duration, zero Zero) {
	v, ok := r.Lookup(name)
	if !ok {
		return
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		r.Failf("%s=%q: not a duration (use Go syntax such as 10s or 500ms)", name, v)
	case d < 0:
		r.Failf("%s=%q: must not be negative%s", name, v, zero.hint())
	case d == 0:
		r.zero(name, v, zero, func(n int64) { *dst = time.Duration(n) })
	default:
		*dst = d
	}
}

// Int reads a whole number, 0 or more.
func (r *Reader) Int(name string, dst *int, zero Zero) {
	v, ok := r.Lookup(name)
	if !ok {
		return
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		r.Failf("%s=%q: not a whole number", name, v)
	case n < 0:
		r.Failf("%s=%q: must not be negative%s", name, v, zero.hint())
	case n == 0:
		r.zero(name, v, zero, func(n int64) { *dst = int(n) })
	default:
		*dst = n
	}
}

// Size reads a number of bytes: a whole number, optionally followed by
// B, KiB, MiB or GiB ("1048576", "64KiB", "2MiB").
func (r *Reader) Size(name string, dst *int64, zero Zero) {
	v, ok := r.Lookup(name)
	if !ok {
		return
	}
	n, err := parseSize(v)
	switch {
	case err != nil:
		r.Failf("%s=%q: not a size in bytes (such as 1048576, 64KiB or 2MiB)", name, v)
	case n < 0:
		r.Failf("%s=%q: must not be negative%s", name, v, zero.hint())
	case n == 0:
		r.zero(name, v, zero, func(n int64) { *dst = n })
	default:
		*dst = n
	}
}

// SizeInt is Size for an int destination.
func (r *Reader) SizeInt(name string, dst *int, zero Zero) {
	n := int64(*dst)
	r.Size(name, &n, zero)
	*dst = int(n)
}

func parseSize(v string) (int64, error) {
	units := [...]struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if s, ok := strings.CutSuffix(v, u.suffix); ok {
			v, mult = strings.TrimSpace(s), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, err
	}
	if n > 0 && n > (1<<63-1)/mult {
		return 0, strconv.ErrRange
	}
	return n * mult, nil
}

// Bool reads true or false (strconv.ParseBool's spellings: 1, t, true, 0,
// f, false, any case).
func (r *Reader) Bool(name string, dst *bool) {
	v, ok := r.Lookup(name)
	if !ok {
		return
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		r.Failf("%s=%q: not a boolean (true or false)", name, v)
		return
	}
	*dst = b
}

// List reads a comma-separated list; items are trimmed and empty ones
// dropped. A variable set to only commas and spaces gives an empty, non-nil
// list.
func (r *Reader) List(name string, dst *[]string) {
	v, ok := r.Lookup(name)
	if !ok {
		return
	}
	list := []string{}
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			list = append(list, item)
		}
	}
	*dst = list
}

// Addr reads a listen address, host:port with the host possibly empty
// (":8080", "127.0.0.1:9090", "[::1]:0").
func (r *Reader) Addr(name string, dst *string) {
	v, ok := r.Lookup(name)
	if !ok {
		return
	}
	if err := CheckAddr(v); err != nil {
		r.Failf("%s=%q: not a listen address (host:port, such as :8080): %v", name, v, err)
		return
	}
	*dst = v
}

// CheckAddr checks a listen address: host:port, the host possibly empty,
// the port a number from 0 to 65535 or a service name.
func CheckAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if port == "" {
		return fmt.Errorf("missing port")
	}
	if n, err := strconv.Atoi(port); err == nil && (n < 0 || n > 65535) {
		return fmt.Errorf("port %d out of range", n)
	}
	return nil
}

func (r *Reader) zero(name, v string, zero Zero, set func(int64)) {
	switch zero {
	case ZeroOff:
		set(Off)
	case ZeroValue:
		set(0)
	default:
		r.Failf("%s=%q: must be more than 0 (this setting cannot be switched off)", name, v)
	}
}

func (z Zero) hint() string {
	if z == ZeroOff {
		return " (0 switches it off)"
	}
	return ""
}
