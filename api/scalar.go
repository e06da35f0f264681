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
type parseFunc func(p unsafe.Pointer, s string) error

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
		ep, what := scalarParser(t.Elem())
		if ep == nil {
			return nil, ""
		}
		et := t.Elem()
		return func(p unsafe.Pointer, s string) error {
			v := reflect.New(et)
			if err := ep(v.UnsafePointer(), s); err != nil {
				return err
			}
			*(*unsafe.Pointer)(p) = v.UnsafePointer()
			return nil
		}, what
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
	switch t.Kind() {
	case reflect.String:
		return func(p unsafe.Pointer, s string) error {
			*(*string)(p) = s
			return nil
		}, "a string"
	case reflect.Bool:
		return func(p unsafe.Pointer, s string) error {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return errBadValue
			}
			*(*bool)(p) = b
			return nil
		}, "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits, k := t.Bits(), t.Kind()
		return func(p unsafe.Pointer, s string) error {
			n, err := strconv.ParseInt(s, 10, bits)
			if err != nil {
				return errBadValue
			}
			setInt(p, k, n)
			return nil
		}, typeWords(t)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		bits, k := t.Bits(), t.Kind()
		return func(p unsafe.Pointer, s string) error {
			n, err := strconv.ParseUint(s, 10, bits)
			if err != nil {
				return errBadValue
			}
			setUint(p, k, n)
			return nil
		}, typeWords(t)
	case reflect.Float32, reflect.Float64:
		bits := t.Bits()
		return func(p unsafe.Pointer, s string) error {
			f, err := strconv.ParseFloat(s, bits)
			if err != nil {
				return errBadValue
			}
			if bits == 32 {
				*(*float32)(p) = float32(f)
			} else {
				*(*float64)(p) = f
			}
			return nil
		}, "a number"
	}
	return nil, ""
}

func setInt(p unsafe.Pointer, k reflect.Kind, n int64) {
	switch k {
	case reflect.Int:
		*(*int)(p) = int(n)
	case reflect.Int8:
		*(*int8)(p) = int8(n)
	case reflect.Int16:
		*(*int16)(p) = int16(n)
	case reflect.Int32:
		*(*int32)(p) = int32(n)
	default:
		*(*int64)(p) = n
	}
}

func setUint(p unsafe.Pointer, k reflect.Kind, n uint64) {
	switch k {
	case reflect.Uint:
		*(*uint)(p) = uint(n)
	case reflect.Uint8:
		*(*uint8)(p) = uint8(n)
	case reflect.Uint16:
		*(*uint16)(p) = uint16(n)
	case reflect.Uint32:
		*(*uint32)(p) = uint32(n)
	case reflect.Uintptr:
		*(*uintptr)(p) = uintptr(n)
	default:
		*(*uint64)(p) = n
	}
}

func getInt(p unsafe.Pointer, k reflect.Kind) int64 {
	switch k {
	case reflect.Int:
		return int64(*(*int)(p))
	case reflect.Int8:
		return int64(*(*int8)(p))
	case reflect.Int16:
		return int64(*(*int16)(p))
	case reflect.Int32:
		return int64(*(*int32)(p))
	default:
		return *(*int64)(p)
	}
}

func getUint(p unsafe.Pointer, k reflect.Kind) uint64 {
	switch k {
	case reflect.Uint:
		return uint64(*(*uint)(p))
	case reflect.Uint8:
		return uint64(*(*uint8)(p))
	case reflect.Uint16:
		return uint64(*(*uint16)(p))
	case reflect.Uint32:
		return uint64(*(*uint32)(p))
	case reflect.Uintptr:
		return uint64(*(*uintptr)(p))
	default:
		return *(*uint64)(p)
	}
}

// sliceHeader is the layout of every Go slice.
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

// sliceParser returns a function that sets the slice at p from values, one
// element each, using the element parser ep.
func sliceParser(t reflect.Type, ep parseFunc) func(p unsafe.Pointer, vals []string) (int, error) {
	et := t.Elem()
	size := et.Size()
	return func(p unsafe.Pointer, vals []string) (int, error) {
		s := reflect.MakeSlice(t, len(vals), len(vals))
		data := s.UnsafePointer()
		for i, v := range vals {
			if err := ep(unsafe.Add(data, uintptr(i)*size), v); err != nil {
				return i, err
			}
		}
		*(*sliceHeader)(p) = sliceHeader{data, len(vals), len(vals)}
		return 0, nil
	}
}

// valueAt returns the value of type t at p as an interface, for an error
// report.
func valueAt(t reflect.Type, p unsafe.Pointer) any {
	return reflect.NewAt(t, p).Elem().Interface()
}
