package web

// Boundary tests of the session codec from mutation testing: every length
// check at exactly its limit (a value that ends the
// data, a payload one byte short, a count that cannot fit), the header's
// limits, and the numeric conversions at the edges of each type. The codec
// is internal, so these tests are too.

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"
)

// codecSamples are one value of each kind the codec has.
func codecSamples() map[string]any {
	return map[string]any{
		"string": "héllo",
		"empty":  "",
		"bytes":  []byte{0, 1, 2, 255},
		"true":   true,
		"false":  false,
		"int":    int64(-42),
		"uint":   uint64(math.MaxUint64),
		"float":  3.5,
		"time":   time.Date(2026, 12, 2, 10, 0, 0, 5, time.UTC),
		"json":   map[string]int{"a": 1},
	}
}

func mustEncode(t *testing.T, created, touched int64, vals []entry) []byte {
	t.Helper()
	b, err := appendEncoded(nil, created, touched, vals)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Each kind decodes when it is the last value, its payload ending exactly
// at the end of the data (fixed-size kinds included), and reads back
// equal; one byte fewer is corrupt, and one byte more too.
func TestCodecValueEndsData(t *testing.T) {
	for name, v := range codecSamples() {
		t.Run(name, func(t *testing.T) {
			b := mustEncode(t, 100, 200, []entry{{key: "first", val: "x"}, {key: name, val: v}})
			if err := validate(b); err != nil {
				t.Fatalf("validate: %v", err)
			}
			created, touched, n, rest, err := decodeHeader(b)
			if err != nil || created != 100 || touched != 200 || n != 2 {
				t.Fatalf("header: %d %d %d %v", created, touched, n, err)
			}
			_, _, _, rest, err = nextValue(rest)
			if err != nil {
				t.Fatal(err)
			}
			key, kind, payload, rest, err := nextValue(rest)
			if err != nil || string(key) != name || len(rest) != 0 {
				t.Fatalf("last value: key %q rest %d err %v", key, len(rest), err)
			}
			got, err := decodeValue(kind, payload)
			if err != nil {
				t.Fatal(err)
			}
			switch want := v.(type) {
			case []byte:
				if !bytes.Equal(got.([]byte), want) {
					t.Errorf("got %v, want %v", got, want)
				}
			case time.Time:
				if !got.(time.Time).Equal(want) {
					t.Errorf("got %v, want %v", got, want)
				}
			case map[string]int:
				if m, ok := convert[map[string]int](got); !ok || m["a"] != 1 {
					t.Errorf("got %v", got)
				}
			default:
				if got != v {
					t.Errorf("got %#v, want %#v", got, v)
				}
			}

			// Every shorter prefix is corrupt (and never a panic); a byte more
			// is corrupt too.
			for i := range len(b) {
				if err := validate(b[:i]); !errors.Is(err, errCorrupt) {
					t.Fatalf("prefix of %d of %d bytes: %v, want errCorrupt", i, len(b), err)
				}
			}
			if err := validate(append(bytes.Clone(b), 0)); !errors.Is(err, errCorrupt) {
				t.Errorf("a trailing byte: %v, want errCorrupt", err)
			}
		})
	}
}

// A length that claims more bytes than there are is corrupt, for the key
// and for the payload, by exactly one byte.
func TestCodecLengthOneTooLong(t *testing.T) {
	head := []byte{codecVersion, 1, 1, 1} // created 1, touched 1, one value
	// key "ab" (length 2) then a string "xyz".
	good := append(bytes.Clone(head), 2, 'a', 'b', kindString, 3, 'x', 'y', 'z')
	if err := validate(good); err != nil {
		t.Fatalf("good: %v", err)
	}
	badKey := append(bytes.Clone(head), 9, 'a', 'b', kindString, 3, 'x', 'y', 'z')
	badKey[4] = byte(len(badKey) - 4) // the key would take every byte after its length, and one more
	if err := validate(badKey); !errors.Is(err, errCorrupt) {
		t.Errorf("key length one past the end: %v", err)
	}
	keyToEnd := append(bytes.Clone(head), 2, 'a', 'b')
	if err := validate(keyToEnd); !errors.Is(err, errCorrupt) {
		t.Errorf("a key ending the data, no kind: %v", err)
	}
	badPayload := append(bytes.Clone(head), 2, 'a', 'b', kindString, 4, 'x', 'y', 'z')
	if err := validate(badPayload); !errors.Is(err, errCorrupt) {
		t.Errorf("payload length one past the end: %v", err)
	}
	for _, kind := range []byte{kindBool, kindInt, kindUint, kindFloat} {
		size := 8
		if kind == kindBool {
			size = 1
		}
		full := append(append(bytes.Clone(head), 1, 'k', kind), make([]byte, size)...)
		if err := validate(full); err != nil {
			t.Errorf("kind %d with exactly %d bytes: %v", kind, size, err)
		}
		if err := validate(full[:len(full)-1]); !errors.Is(err, errCorrupt) {
			t.Errorf("kind %d with %d bytes: %v", kind, size-1, err)
		}
	}
	if err := validate(append(bytes.Clone(head), 1, 'k', 99, 0)); !errors.Is(err, errCorrupt) {
		t.Errorf("an unknown kind: %v", err)
	}
	if _, err := decodeValue(99, nil); !errors.Is(err, errCorrupt) {
		t.Errorf("decodeValue of an unknown kind: %v", err)
	}
	if _, err := decodeValue(kindTime, []byte{1, 2}); !errors.Is(err, errCorrupt) {
		t.Errorf("decodeValue of a bad time: %v", err)
	}
}

// The header: the version byte, three uvarints, times up to MaxInt64.
func TestCodecHeaderBounds(t *testing.T) {
	hdr := func(version byte, created, touched, n uint64) []byte {
		b := []byte{version}
		b = binary.AppendUvarint(b, created)
		b = binary.AppendUvarint(b, touched)
		return binary.AppendUvarint(b, n)
	}
	if c, tc, n, rest, err := decodeHeader(hdr(codecVersion, math.MaxInt64, math.MaxInt64, 0)); err != nil ||
		c != math.MaxInt64 || tc != math.MaxInt64 || n != 0 || len(rest) != 0 {
		t.Errorf("times of MaxInt64: %d %d %d %v", c, tc, n, err)
	}
	if err := validate(hdr(codecVersion, math.MaxInt64, math.MaxInt64, 0)); err != nil {
		t.Errorf("an empty session: %v", err)
	}
	for name, b := range map[string][]byte{
		"created past MaxInt64": hdr(codecVersion, math.MaxInt64+1, 0, 0),
		"touched past MaxInt64": hdr(codecVersion, 0, math.MaxInt64+1, 0),
		"version 0":             hdr(0, 1, 1, 0),
		"version 2":             hdr(2, 1, 1, 0),
		"empty":                 {},
		"version only":          {codecVersion},
		"no count":              {codecVersion, 1, 1},
		"truncated uvarint":     {codecVersion, 0x80},
	} {
		if _, _, _, _, err := decodeHeader(b); !errors.Is(err, errCorrupt) {
			t.Errorf("%s: %v, want errCorrupt", name, err)
		}
		if err := validate(b); !errors.Is(err, errCorrupt) {
			t.Errorf("validate %s: %v, want errCorrupt", name, err)
		}
	}
	// A count of values larger than the bytes left is corrupt, whatever
	// follows; a count equal to them too (a value takes at least 3 bytes).
	if err := validate(append(hdr(codecVersion, 1, 1, 3), 1, 'k', kindBool)); !errors.Is(err, errCorrupt) {
		t.Errorf("count of 3 over 3 bytes: %v", err)
	}
	if err := validate(append(hdr(codecVersion, 1, 1, 4), 1, 'k', kindBool)); !errors.Is(err, errCorrupt) {
		t.Errorf("count of 4 over 3 bytes: %v", err)
	}
	if err := validate(append(hdr(codecVersion, 1, 1, 1), 0, kindBool, 1)); err != nil {
		t.Errorf("one value in exactly 3 bytes (empty key): %v", err)
	}
	if err := validate(append(hdr(codecVersion, 1, 1, 0), 0)); !errors.Is(err, errCorrupt) {
		t.Errorf("no values but a byte left: %v", err)
	}
}

// Booleans decode as their byte: 1 is true, 0 false.
func TestCodecBool(t *testing.T) {
	for _, c := range []struct {
		b    byte
		want bool
	}{{0, false}, {1, true}} {
		v, err := decodeValue(kindBool, []byte{c.b})
		if err != nil || v != c.want {
			t.Errorf("decodeValue(bool %d) = %v %v", c.b, v, err)
		}
		d, ok, done := decodeDirect[bool](kindBool, []byte{c.b})
		if d != c.want || !ok || !done {
			t.Errorf("decodeDirect(bool %d) = %v %v %v", c.b, d, ok, done)
		}
	}
}

// Numbers convert between integer types exactly when the value fits.
func TestCodecConvertNumberEdges(t *testing.T) {
	check := func(name string, got, want any, ok, wantOK bool) {
		t.Helper()
		if ok != wantOK || wantOK && got != want {
			t.Errorf("%s: %v %v, want %v %v", name, got, ok, want, wantOK)
		}
	}
	{
		v, ok := convert[int64](uint64(math.MaxInt64))
		check("uint64 MaxInt64 as int64", v, int64(math.MaxInt64), ok, true)
		_, ok = convert[int64](uint64(math.MaxInt64) + 1)
		check("uint64 MaxInt64+1 as int64", nil, nil, ok, false)
		u, ok := convert[uint64](uint(math.MaxInt64) + 1) // a uint, not a uint64: through convertNumber
		check("uint MaxInt64+1 as uint64", u, uint64(math.MaxInt64)+1, ok, true)
		_, ok = convert[int](uint(math.MaxInt64) + 1)
		check("uint MaxInt64+1 as int", nil, nil, ok, false)
		u, ok = convert[uint64](uint(7))
		check("uint as uint64", u, uint64(7), ok, true)
	}
	{
		v, ok := convert[int](int64(-5))
		check("int64 -5 as int", v, -5, ok, true)
		v, ok = convert[int](uint32(9))
		check("uint32 as int", v, 9, ok, true)
		v, ok = convert[int](int32(-9))
		check("int32 as int", v, -9, ok, true)
	}
	{
		v, ok := convert[int32](int64(math.MaxInt32))
		check("MaxInt32 as int32", v, int32(math.MaxInt32), ok, true)
		_, ok = convert[int32](int64(math.MaxInt32) + 1)
		check("MaxInt32+1 as int32", nil, nil, ok, false)
		v, ok = convert[int32](int64(math.MinInt32))
		check("MinInt32 as int32", v, int32(math.MinInt32), ok, true)
		_, ok = convert[int32](int64(math.MinInt32) - 1)
		check("MinInt32-1 as int32", nil, nil, ok, false)
	}
	{
		v, ok := convert[uint](int64(0))
		check("0 as uint", v, uint(0), ok, true)
		_, ok = convert[uint](int64(-1))
		check("-1 as uint", nil, nil, ok, false)
		w, ok := convert[uint64](int64(0))
		check("0 as uint64", w, uint64(0), ok, true)
		_, ok = convert[uint64](int64(-1))
		check("-1 as uint64", nil, nil, ok, false)
	}
	{
		v, ok := convert[uint32](int64(0))
		check("0 as uint32", v, uint32(0), ok, true)
		v, ok = convert[uint32](int64(math.MaxUint32))
		check("MaxUint32 as uint32", v, uint32(math.MaxUint32), ok, true)
		_, ok = convert[uint32](int64(math.MaxUint32) + 1)
		check("MaxUint32+1 as uint32", nil, nil, ok, false)
		_, ok = convert[uint32](int64(-1))
		check("-1 as uint32", nil, nil, ok, false)
	}
	{
		f, ok := convert[float64](int64(-3))
		check("int64 as float64", f, float64(-3), ok, true)
		_, ok = convert[string](int64(1))
		check("int64 as string", nil, nil, ok, false)
		_, ok = convert[int](3.5)
		check("float64 as int", nil, nil, ok, false)
		_, ok = convert[int16](int64(1))
		check("int64 as int16", nil, nil, ok, false)
		_, ok = convert[map[string]int](rawJSON(`[1]`))
		check("bad JSON", nil, nil, ok, false)
	}
}

// decodeDirect answers for the kinds it knows and leaves the others to
// convert: an int64 from a uint payload is convert's (done false), from a
// string or a bool it is a plain miss (done true).
func TestCodecDecodeDirectKinds(t *testing.T) {
	eight := binary.LittleEndian.AppendUint64(nil, 7)
	if v, ok, done := decodeDirect[int64](kindInt, eight); v != 7 || !ok || !done {
		t.Errorf("int64 from int: %v %v %v", v, ok, done)
	}
	if v, ok, done := decodeDirect[int](kindInt, eight); v != 7 || !ok || !done {
		t.Errorf("int from int: %v %v %v", v, ok, done)
	}
	for _, kind := range []byte{kindUint, kindFloat, kindJSON, kindTime, kindBytes} {
		if _, ok, done := decodeDirect[int64](kind, eight); ok || done {
			t.Errorf("int64 from kind %d: ok %v done %v, want convert's", kind, ok, done)
		}
		if _, ok, done := decodeDirect[int](kind, eight); ok || done {
			t.Errorf("int from kind %d: ok %v done %v, want convert's", kind, ok, done)
		}
	}
	for _, kind := range []byte{kindString, kindBool} {
		if _, ok, done := decodeDirect[int64](kind, []byte{1}); ok || !done {
			t.Errorf("int64 from kind %d: ok %v done %v, want a miss", kind, ok, done)
		}
		if _, ok, done := decodeDirect[int](kind, []byte{1}); ok || !done {
			t.Errorf("int from kind %d: ok %v done %v, want a miss", kind, ok, done)
		}
	}
	if _, ok, done := decodeDirect[string](kindBytes, []byte("x")); ok || !done {
		t.Errorf("string from bytes: %v %v", ok, done)
	}
	if _, ok, done := decodeDirect[[]byte](kindString, []byte("x")); ok || !done {
		t.Errorf("bytes from string: %v %v", ok, done)
	}
	if _, ok, done := decodeDirect[bool](kindString, []byte{1}); ok || !done {
		t.Errorf("bool from string: %v %v", ok, done)
	}
	if _, ok, done := decodeDirect[float64](kindFloat, eight); ok || done {
		t.Errorf("float64: %v %v, want convert's", ok, done)
	}
}

// decodeBase64URL decodes any length, across its 64-character chunks, as
// the standard decoder does, and reports bad input.
func TestCodecBase64AcrossChunks(t *testing.T) {
	src := make([]byte, 200)
	for i := range src {
		src[i] = byte(i*7 + 3)
	}
	for n := range len(src) + 1 {
		s := base64.RawURLEncoding.EncodeToString(src[:n])
		dst := make([]byte, base64.RawURLEncoding.DecodedLen(len(s)))
		got, err := decodeBase64URL(dst, s)
		if err != nil || got != n || !bytes.Equal(dst[:got], src[:n]) {
			t.Fatalf("%d bytes (%d characters): %d %v", n, len(s), got, err)
		}
	}
	s := base64.RawURLEncoding.EncodeToString(src[:90]) // 120 characters: two chunks
	bad := s[:100] + "*" + s[101:]
	if _, err := decodeBase64URL(make([]byte, 90), bad); err == nil {
		t.Error("a bad character in the second chunk decoded")
	}
}
