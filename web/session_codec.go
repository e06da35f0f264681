package web

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// The encoded session: a version byte, the creation and last-touch times
// (Unix seconds, uvarint), the number of values (uvarint) and each value as
// its key (uvarint length, bytes), a kind byte and its payload. Strings,
// byte slices, booleans, integers, floats and times have kinds of their own,
// read without reflection; every other type is JSON.
const codecVersion = 1

const (
	kindString byte = iota + 1
	kindBytes
	kindBool
	kindInt
	kindUint
	kindFloat
	kindTime
	kindJSON
)

// errCorrupt reports data that does not decode: a session saved by another
// program, or damaged. The session is then treated as absent.
var errCorrupt = errors.New("web: corrupt session data")

// entry is one decoded value. raw holds a JSON payload that has not been
// decoded into a type yet.
type entry struct {
	key string
	val any
}

// rawJSON is a value of kindJSON read back before a typed Get decoded it.
type rawJSON []byte

// header reads the times and the value count at the start of b.
func decodeHeader(b []byte) (created, touched int64, n uint64, rest []byte, err error) {
	if len(b) == 0 || b[0] != codecVersion {
		return 0, 0, 0, nil, errCorrupt
	}
	b = b[1:]
	var vals [3]uint64
	for i := range vals {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, 0, 0, nil, errCorrupt
		}
		vals[i], b = v, b[k:]
	}
	if vals[0] > math.MaxInt64 || vals[1] > math.MaxInt64 {
		return 0, 0, 0, nil, errCorrupt
	}
	return int64(vals[0]), int64(vals[1]), vals[2], b, nil
}

// nextValue splits the first encoded value off b: its key, kind and payload
// (for fixed-size kinds the payload is the fixed bytes).
func nextValue(b []byte) (key []byte, kind byte, payload, rest []byte, err error) {
	klen, k := binary.Uvarint(b)
	if k <= 0 || klen > uint64(len(b)-k) {
		return nil, 0, nil, nil, errCorrupt
	}
	b = b[k:]
	key, b = b[:klen], b[klen:]
	if len(b) == 0 {
		return nil, 0, nil, nil, errCorrupt
	}
	kind, b = b[0], b[1:]
	switch kind {
	case kindBool:
		if len(b) < 1 {
			return nil, 0, nil, nil, errCorrupt
		}
		return key, kind, b[:1], b[1:], nil
	case kindInt, kindUint, kindFloat:
		if len(b) < 8 {
			return nil, 0, nil, nil, errCorrupt
		}
		return key, kind, b[:8], b[8:], nil
	case kindString, kindBytes, kindTime, kindJSON:
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, 0, nil, nil, errCorrupt
		}
		b = b[k:]
		return key, kind, b[:n], b[n:], nil
	}
	return nil, 0, nil, nil, errCorrupt
}

// decodeValue turns a payload into its Go value.
func decodeValue(kind byte, p []byte) (any, error) {
	switch kind {
	case kindString:
		return string(p), nil
	case kindBytes:
		return append([]byte(nil), p...), nil
	case kindBool:
		return p[0] == 1, nil
	case kindInt:
		return int64(binary.LittleEndian.Uint64(p)), nil
	case kindUint:
		return binary.LittleEndian.Uint64(p), nil
	case kindFloat:
		return math.Float64frombits(binary.LittleEndian.Uint64(p)), nil
	case kindTime:
		var t time.Time
		if err := t.UnmarshalBinary(p); err != nil {
			return nil, errCorrupt
		}
		return t, nil
	case kindJSON:
		return rawJSON(append([]byte(nil), p...)), nil
	}
	return nil, errCorrupt
}

// validate walks b to its end, so that a session whose values would not
// decode is refused at load rather than at the first Get.
func validate(b []byte) error {
	_, _, n, rest, err := decodeHeader(b)
	if err != nil {
		return err
	}
	if n > uint64(len(rest)) {
		return errCorrupt
	}
	for range n {
		if _, _, _, rest, err = nextValue(rest); err != nil {
			return err
		}
	}
	if len(rest) != 0 {
		return errCorrupt
	}
	return nil
}

// appendEncoded appends the encoding of a session to b.
func appendEncoded(b []byte, created, touched int64, vals []entry) ([]byte, error) {
	b = append(b, codecVersion)
	b = binary.AppendUvarint(b, uint64(created))
	b = binary.AppendUvarint(b, uint64(touched))
	b = binary.AppendUvarint(b, uint64(len(vals)))
	var err error
	for _, e := range vals {
		b = binary.AppendUvarint(b, uint64(len(e.key)))
		b = append(b, e.key...)
		if b, err = appendValue(b, e.val); err != nil {
			return b, fmt.Errorf("web: session value %q: %w", e.key, err)
		}
	}
	return b, nil
}

func appendBytes(b []byte, kind byte, p []byte) []byte {
	b = append(b, kind)
	b = binary.AppendUvarint(b, uint64(len(p)))
	return append(b, p...)
}

func appendString(b []byte, kind byte, p string) []byte {
	b = append(b, kind)
	b = binary.AppendUvarint(b, uint64(len(p)))
	return append(b, p...)
}

func appendFixed(b []byte, kind byte, v uint64) []byte {
	b = append(b, kind)
	return binary.LittleEndian.AppendUint64(b, v)
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		return appendString(b, kindString, v), nil
	case []byte:
		return appendBytes(b, kindBytes, v), nil
	case bool:
		if v {
			return append(b, kindBool, 1), nil
		}
		return append(b, kindBool, 0), nil
	case int:
		return appendFixed(b, kindInt, uint64(v)), nil
	case int8:
		return appendFixed(b, kindInt, uint64(v)), nil
	case int16:
		return appendFixed(b, kindInt, uint64(v)), nil
	case int32:
		return appendFixed(b, kindInt, uint64(v)), nil
	case int64:
		return appendFixed(b, kindInt, uint64(v)), nil
	case uint:
		return appendFixed(b, kindUint, uint64(v)), nil
	case uint8:
		return appendFixed(b, kindUint, uint64(v)), nil
	case uint16:
		return appendFixed(b, kindUint, uint64(v)), nil
	case uint32:
		return appendFixed(b, kindUint, uint64(v)), nil
	case uint64:
		return appendFixed(b, kindUint, v), nil
	case float64:
		return appendFixed(b, kindFloat, math.Float64bits(v)), nil
	case float32:
		return appendFixed(b, kindFloat, math.Float64bits(float64(v))), nil
	case time.Time:
		p, err := v.MarshalBinary()
		if err != nil {
			return b, err
		}
		return appendBytes(b, kindTime, p), nil
	case rawJSON:
		return appendBytes(b, kindJSON, v), nil
	}
	p, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return appendBytes(b, kindJSON, p), nil
}

// convert returns v as a T: v itself when it is one, a JSON payload decoded
// into a T, or an integer or float converted to T's numeric kind when the
// value fits. ok is false when v cannot be a T.
func convert[T any](v any) (out T, ok bool) {
	if t, ok := v.(T); ok {
		return t, true
	}
	if raw, isRaw := v.(rawJSON); isRaw {
		if err := json.Unmarshal(raw, &out); err != nil {
			return out, false
		}
		return out, true
	}
	return convertNumber[T](v)
}

func convertNumber[T any](v any) (out T, ok bool) {
	var i int64
	var u uint64
	var isUint bool
	switch n := v.(type) {
	case int64:
		i = n
	case int:
		i = int64(n)
	case int32:
		i = int64(n)
	case uint64:
		u, isUint = n, true
	case uint:
		u, isUint = uint64(n), true
	case uint32:
		u, isUint = uint64(n), true
	default:
		return out, false
	}
	if isUint {
		if u > math.MaxInt64 {
			if p, isU64 := any(&out).(*uint64); isU64 {
				*p = u
				return out, true
			}
			return out, false
		}
		i = int64(u)
	}
	switch p := any(&out).(type) {
	case *int:
		*p = int(i)
		return out, int64(*p) == i
	case *int64:
		*p = i
		return out, true
	case *int32:
		*p = int32(i)
		return out, int64(*p) == i
	case *uint:
		*p = uint(i)
		return out, i >= 0
	case *uint64:
		*p = uint64(i)
		return out, i >= 0
	case *uint32:
		*p = uint32(i)
		return out, i >= 0 && int64(*p) == i
	case *float64:
		*p = float64(i)
		return out, true
	}
	return out, false
}

// decodeDirect decodes the common kinds straight into T, without boxing the
// value in an interface first: a string read allocates the string only.
// done is false for the kinds and types it leaves to convert.
func decodeDirect[T any](kind byte, p []byte) (out T, ok, done bool) {
	// The switch is on a pointer to out, which does not escape: each case
	// writes through it as the type it has checked.
	switch dst := any(&out).(type) {
	case *string:
		if kind != kindString {
			return out, false, true
		}
		*dst = string(p)
		return out, true, true
	case *[]byte:
		if kind != kindBytes {
			return out, false, true
		}
		*dst = append([]byte(nil), p...)
		return out, true, true
	case *bool:
		if kind != kindBool {
			return out, false, true
		}
		*dst = p[0] == 1
		return out, true, true
	case *int64:
		if kind != kindInt {
			return out, false, kind == kindString || kind == kindBool
		}
		*dst = int64(binary.LittleEndian.Uint64(p))
		return out, true, true
	case *int:
		if kind != kindInt {
			return out, false, kind == kindString || kind == kindBool
		}
		*dst = int(int64(binary.LittleEndian.Uint64(p)))
		return out, true, true
	}
	return out, false, false
}

// decodeBase64URL decodes s, unpadded base64url, into dst (which must hold
// base64.RawURLEncoding.DecodedLen(len(s)) bytes) and returns the bytes
// written. It goes through a buffer on the stack, 64 characters (48 bytes)
// at a time, so that a string needs no []byte copy on the heap.
func decodeBase64URL(dst []byte, s string) (int, error) {
	var chunk [64]byte // a multiple of 4 characters: chunks decode alone
	n := 0
	for len(s) > 0 {
		k := copy(chunk[:], s)
		m, err := base64.RawURLEncoding.Decode(dst[n:], chunk[:k])
		n += m
		if err != nil {
			return n, err
		}
		s = s[k:]
	}
	return n, nil
}
