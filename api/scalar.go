package api

import (
	"encoding"
	"errors"
	"mime/multipart"
	"reflect"
	"strconv"
	"time"
	"unsafe"
)

// parseFunc parses s into the value at p, whose type the function was made
// for.
//
// Parsers write through unsafe pointers at offsets computed at
// registration, as the checks read (see check): binding a parameter is an
// addition and a typed store. Through reflect.Value instead (Field, then
// SetInt, SetString, ...), binding was measurably slower:
//
//   - the typed GET of BenchmarkBindParams (a parameter from each source,
//     a header and a JSON body written), this package against the same
//     with reflect.Value parsers, side by side: 991 -> 1092 ns (+10%,
//     benchstat p<0.001, n=15), with
//     go test ./api -run '^$' -bench '^BenchmarkBindParams$' -benchtime 200ms -count 15
//     (GOMAXPROCS=1, taskset -c 1, the two test binaries interleaved);
//   - the five parameters alone, parsed and checked: 63 -> 85 ns (+34%,
//     p<0.001, n=20), with
//     go test ./api -run '^$' -bench 'BindFieldAccess' -benchtime 100ms -count 20.
type parseFunc func(p unsafe.Pointer, s string) error

// parseAllFunc sets the slice at p from vals, one element each; on a value
// that does not parse it returns that value's index and the error.
type parseAllFunc func(p unsafe.Pointer, vals []string) (int, error)

var (
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	timeType            = reflect.TypeFor[time.Time]()
	fileHeaderPtrType   = reflect.TypeFor[*multipart.FileHeader]()
	errBadValue         = errors.New("bad value")
)

// scalarParser returns the parser of a parameter type and the words naming
// what it expects ("an integer"), or nil if t is not a scalar: string, bool,
// the integer and float kinds, a type whose pointer implements
// encoding.TextUnmarshaler (time.Time as RFC 3339), or a pointer to one of
// those (allocated when the value is present).
func scalarParser(t reflect.Type) (parseFunc, string) {
	if t.Kind() == reflect.Pointer {
		return pointerParser(t)
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		what := "a valid value"
		if t == timeType {
			what = "a date-time (RFC 3339)"
		}
		return func(p unsafe.Pointer, s string) error {
			return reflect.NewAt(t, p).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
		}, what
	}
	switch k := t.Kind(); {
	case k == reflect.String:
		return func(p unsafe.Pointer, s string) error {
			*at[string](p) = s
			return nil
		}, "a string"
	case k == reflect.Bool:
		return parseBool, "a boolean"
	case k >= reflect.Int && k <= reflect.Int64:
		return intParser(k, t.Bits()), typeWords(t)
	case k >= reflect.Uint && k <= reflect.Uintptr:
		return uintParser(k, t.Bits()), typeWords(t)
	case k == reflect.Float32 || k == reflect.Float64:
		return floatParser(t.Bits()), "a number"
	}
	return nil, ""
}

// pointerParser returns the parser of a pointer to a scalar: the value is
// allocated and set only when it parses.
func pointerParser(t reflect.Type) (parseFunc, string) {
	et := t.Elem()
	ep, what := scalarParser(et)
	if ep == nil {
		return nil, ""
	}
	return func(p unsafe.Pointer, s string) error {
		v := reflect.New(et)
		if err := ep(v.UnsafePointer(), s); err != nil {
			return err
		}
		*at[unsafe.Pointer](p) = v.UnsafePointer()
		return nil
	}, what
}

// parseBool parses a boolean as strconv.ParseBool does.
func parseBool(p unsafe.Pointer, s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errBadValue
	}
	*at[bool](p) = b
	return nil
}

// intParser parses a base-10 integer of kind k, which has bits.
func intParser(k reflect.Kind, bits int) parseFunc {
	_, store := intAccess(k)
	return func(p unsafe.Pointer, s string) error {
		n, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			return errBadValue
		}
		store(p, n)
		return nil
	}
}

// uintParser parses a base-10 unsigned integer of kind k, which has bits.
func uintParser(k reflect.Kind, bits int) parseFunc {
	_, store := uintAccess(k)
	return func(p unsafe.Pointer, s string) error {
		n, err := strconv.ParseUint(s, 10, bits)
		if err != nil {
			return errBadValue
		}
		store(p, n)
		return nil
	}
}

// floatParser parses a number as a float of bits (32 or 64).
func floatParser(bits int) parseFunc {
	return func(p unsafe.Pointer, s string) error {
		f, err := strconv.ParseFloat(s, bits)
		if err != nil {
			return errBadValue
		}
		if bits == 32 {
			*at[float32](p) = float32(f)
		} else {
			*at[float64](p) = f
		}
		return nil
	}
}

// sliceParser returns a function that sets a slice of type t from values,
// one element each, using the element parser ep. The slice is set only if
// every value parses.
func sliceParser(t reflect.Type, ep parseFunc) parseAllFunc {
	return func(p unsafe.Pointer, vals []string) (int, error) {
		s := reflect.MakeSlice(t, len(vals), len(vals))
		for i, val := range vals {
			if err := ep(s.Index(i).Addr().UnsafePointer(), val); err != nil {
				return i, err
			}
		}
		reflect.NewAt(t, p).Elem().Set(s)
		return 0, nil
	}
}
