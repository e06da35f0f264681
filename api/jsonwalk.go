package api

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// walker reads a JSON value against the Go type it was decoded into, the
// way encoding/json matches them, on the error and presence paths only (a
// valid request without "" never gets here). encoding/json reports the
// first value of a wrong type only, with its JSON type name, and stops at
// the first failing UnmarshalJSON; the walker finds every one, with its
// location (array indices included) and the value itself, and every
// unknown member. It also records which members of the fields whose
// absence matters the body has (see fieldCheck.presence).
//
// The input has passed encoding/json's syntax check, so the walker does not
// check syntax; it stays in bounds on any input.
type walker struct {
	data         []byte
	v            *validators
	allowUnknown bool
	path         []byte
	errs         []walkError
	present      map[string]bool
	end          int // the offset after the value
}

// walkError is one value of the wrong type, or one unknown member.
type walkError struct {
	loc        string
	code       string // "type" or "unknown"
	what       string // the expected type, in words
	value      any
	start, end int // the value's bytes, replaced by null for the second decode
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	jsonNumberType      = reflect.TypeFor[json.Number]()
)

// walkJSON walks data (one JSON value, then blanks) as a value of type t,
// located at loc.
func walkJSON(data []byte, t reflect.Type, v *validators, allowUnknown bool, loc string) *walker {
	w := &walker{data: data, v: v, allowUnknown: allowUnknown, path: []byte(loc), present: map[string]bool{}}
	w.end = w.value(w.ws(0), t)
	return w
}

// patched returns the data with every value of the wrong type replaced by
// null, which encoding/json skips, so that a second decode fills in
// everything else.
func (w *walker) patched() []byte {
	var b []byte
	last := 0
	for _, e := range w.errs {
		if e.code != "type" || e.start < last {
			continue
		}
		b = append(b, w.data[last:e.start]...)
		b = append(b, "null"...)
		last = e.end
	}
	return append(b, w.data[last:]...)
}

// ws returns the offset of the first non-blank byte at or after i.
func (w *walker) ws(i int) int {
	for i < len(w.data) {
		switch w.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the offset after the string literal starting at i.
func (w *walker) stringEnd(i int) int {
	for i++; i < len(w.data); i++ {
		switch w.data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(w.data)
}

// skip returns the offset after the value starting at i.
func (w *walker) skip(i int) int {
	if i >= len(w.data) {
		return i
	}
	switch w.data[i] {
	case '"':
		return w.stringEnd(i)
	case '{', '[':
		depth := 0
		for i < len(w.data) {
			switch w.data[i] {
			case '"':
				i = w.stringEnd(i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(w.data) && strings.IndexByte(",}] \t\r\n", w.data[i]) < 0 {
		i++
	}
	return i
}

// fail records a value of the wrong type at [start, end).
func (w *walker) fail(t reflect.Type, start, end int) int {
	w.errs = append(w.errs, walkError{loc: string(w.path), code: "type", what: typeWords(t), value: rawValue(w.data[start:end]), start: start, end: end})
	return end
}

// rawValue returns a JSON value for an error report: a string, number or
// boolean as such, anything else (and a long number) as its JSON text, cut
// to maxValueLen bytes plus valueEllipsis.
func rawValue(raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return truncate(s)
		}
	case c == 't':
		return true
	case c == 'f':
		return false
	case c == '-' || c >= '0' && c <= '9':
		if len(raw) <= maxValueLen {
			return json.Number(raw)
		}
	}
	return truncate(string(raw))
}

// value walks the value at i as a t and returns the offset after it,
// recording a value that does not fit t (and, below it, every member and
// element that does not fit its own type).
func (w *walker) value(i int, t reflect.Type) int {
	if i >= len(w.data) {
		return i
	}
	c := w.data[i]
	end := w.skip(i)
	if c == 'n' {
		return end // null leaves any Go value as it is
	}
	t, done := w.unmarshaler(i, end, t)
	if done {
		return end
	}
	k := t.Kind()
	switch {
	case t == rawMessageType || k == reflect.Interface && t.NumMethod() == 0:
		return end
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
		if !textFits(w.data[i:end], t) {
			return w.fail(t, i, end)
		}
	case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && c == '"':
		if !base64Fits(w.data[i:end]) {
			return w.fail(t, i, end)
		}
	case k == reflect.Slice || k == reflect.Array || k == reflect.Map || k == reflect.Struct:
		return w.composite(i, end, t)
	case k == reflect.Interface:
		return w.fail(t, i, end) // a non-empty interface takes only null
	default:
		if !scalarFits(w.data[i:end], t) {
			return w.fail(t, i, end)
		}
	}
	return end
}

// composite walks the array or object at [i, end) as the slice, array, map
// or struct type t, or records it as a value of the wrong type.
func (w *walker) composite(i, end int, t reflect.Type) int {
	c := w.data[i]
	switch k := t.Kind(); {
	case k == reflect.Slice || k == reflect.Array:
		if c != '[' {
			return w.fail(t, i, end)
		}
		w.array(i, t)
	case c != '{':
		return w.fail(t, i, end)
	case k == reflect.Map:
		w.mapValue(i, t)
	default:
		w.structValue(i, t)
	}
	return end
}

// unmarshaler follows the pointers of t down to the value type. On the
// way, a type whose pointer implements json.Unmarshaler decides alone, as
// encoding/json lets it: its UnmarshalJSON runs on the value at [i, end)
// (a failure is recorded) and done is true.
func (w *walker) unmarshaler(i, end int, t reflect.Type) (reflect.Type, bool) {
	for {
		if reflect.PointerTo(t).Implements(jsonUnmarshalerType) {
			// encoding/json calls the method of the value's address
			if reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(w.data[i:end]) != nil {
				w.fail(t, i, end)
			}
			return t, true
		}
		if t.Kind() != reflect.Pointer {
			return t, false
		}
		t = t.Elem()
	}
}

// textFits reports whether lit is a JSON string that t's UnmarshalText
// accepts.
func textFits(lit []byte, t reflect.Type) bool {
	var s string
	return len(lit) > 0 && lit[0] == '"' && json.Unmarshal(lit, &s) == nil &&
		reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)) == nil
}

// base64Fits reports whether the JSON string lit holds standard base64, as
// encoding/json decodes a []byte.
func base64Fits(lit []byte) bool {
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return false
	}
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

// scalarFits reports whether the JSON literal lit fits the scalar type t
// (json.Number, a string, a bool, an integer in range, a float); true for
// a type that is none of those.
func scalarFits(lit []byte, t reflect.Type) bool {
	c := lit[0]
	switch k := t.Kind(); {
	case t == jsonNumberType:
		return numberLiteral(lit)
	case k == reflect.String:
		return c == '"'
	case k == reflect.Bool:
		return c == 't' || c == 'f'
	case k >= reflect.Int && k <= reflect.Int64:
		_, err := strconv.ParseInt(string(lit), 10, t.Bits())
		return err == nil
	case k >= reflect.Uint && k <= reflect.Uintptr:
		_, err := strconv.ParseUint(string(lit), 10, t.Bits())
		return err == nil
	case k == reflect.Float32 || k == reflect.Float64:
		_, err := strconv.ParseFloat(string(lit), t.Bits())
		return (c == '-' || c >= '0' && c <= '9') && err == nil
	}
	return true
}

// numberLiteral reports whether lit is a JSON number, or a string holding
// one, as a json.Number takes.
func numberLiteral(lit []byte) bool {
	if lit[0] == '"' {
		var s string
		_ = json.Unmarshal(lit, &s)
		lit = []byte(s)
	}
	return json.Valid(lit) && len(lit) > 0 && (lit[0] == '-' || lit[0] >= '0' && lit[0] <= '9')
}

// mapValue walks the members of the object at i as the values of the map
// type t, located by their keys.
func (w *walker) mapValue(i int, t reflect.Type) {
	w.object(i, func(name string, j int) int {
		mark := len(w.path)
		w.path = append(w.path, '.')
		w.path = append(w.path, name...)
		j = w.value(j, t.Elem())
		w.path = w.path[:mark]
		return j
	})
}

// structValue walks the members of the object at i as the fields of the
// struct type t: an unknown member is recorded unless allowed, a member
// whose presence matters is recorded as present, and each value is walked
// as its field's type (a ",string" field is encoding/json's business).
func (w *walker) structValue(i int, t reflect.Type) {
	sc := w.v.structs[t]
	if sc == nil {
		return // not compiled: nothing to say about it
	}
	w.object(i, func(name string, j int) int {
		f := sc.lookup(name)
		mark := len(w.path)
		w.path = append(w.path, '.')
		if f == nil {
			w.path = append(w.path, name...)
			vend := w.skip(j)
			if !w.allowUnknown {
				w.errs = append(w.errs, walkError{loc: string(w.path), code: "unknown", start: j, end: vend})
			}
			w.path = w.path[:mark]
			return vend
		}
		w.path = append(w.path, f.name...)
		if f.presence && j < len(w.data) && w.data[j] != 'n' {
			w.present[string(w.path)] = true
		}
		if stringOption(f.sf) {
			j = w.skip(j)
		} else {
			j = w.value(j, f.typ)
		}
		w.path = w.path[:mark]
		return j
	})
}

// array walks the elements of the array at i.
func (w *walker) array(i int, t reflect.Type) {
	limit := -1
	if t.Kind() == reflect.Array {
		limit = t.Len() // encoding/json drops the rest
	}
	i = w.ws(i + 1)
	for n := 0; i < len(w.data) && w.data[i] != ']'; n++ {
		if limit < 0 || n < limit {
			mark := len(w.path)
			w.path = append(w.path, '[')
			w.path = strconv.AppendInt(w.path, int64(n), 10)
			w.path = append(w.path, ']')
			i = w.value(i, t.Elem())
			w.path = w.path[:mark]
		} else {
			i = w.skip(i)
		}
		i = w.ws(i)
		if i < len(w.data) && w.data[i] == ',' {
			i = w.ws(i + 1)
		}
	}
}

// object calls member for each member of the object at i with its name and
// the offset of its value; member returns the offset after the value.
func (w *walker) object(i int, member func(name string, j int) int) {
	i = w.ws(i + 1)
	for i < len(w.data) && w.data[i] == '"' {
		kend := w.stringEnd(i)
		raw := w.data[i:kend]
		var name string
		if bytes.IndexByte(raw, '\\') >= 0 {
			_ = json.Unmarshal(raw, &name)
		} else if len(raw) >= 2 {
			name = string(raw[1 : len(raw)-1])
		}
		j := w.ws(kend)
		if j < len(w.data) && w.data[j] == ':' {
			j = w.ws(j + 1)
		}
		i = w.ws(member(name, j))
		if i < len(w.data) && w.data[i] == ',' {
			i = w.ws(i + 1)
		}
	}
}

// lookup finds the field of a member name as encoding/json does: the exact
// name, or else a case-insensitive match.
func (sc *structCheck) lookup(name string) *fieldCheck {
	if sc == nil {
		return nil
	}
	if j, ok := sc.byName[name]; ok {
		return &sc.fields[j]
	}
	for j := range sc.fields {
		if strings.EqualFold(sc.fields[j].name, name) {
			return &sc.fields[j]
		}
	}
	return nil
}

// stringOption reports whether f has the ",string" JSON option.
func stringOption(f reflect.StructField) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == "string" {
			return true
		}
	}
	return false
}

// typeWords names what a value of type t must be, for a type error: "an
// integer from 0 to 255", "a date-time (RFC 3339)".
func typeWords(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType {
		return "a date-time (RFC 3339)"
	}
	if t == bytesType {
		return "a base64 string"
	}
	if decodesItself(t) {
		return "a valid value" // not "an object": its own JSON form is what it says
	}
	switch k := t.Kind(); k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Int8, reflect.Int16, reflect.Int32:
		lo, hi := intRange(k)
		return "an integer from " + strconv.FormatInt(lo, 10) + " to " + strconv.FormatInt(hi, 10)
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer"
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return "an integer from 0 to " + strconv.FormatUint(uintMax(k), 10)
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a valid value"
}

// decodesItself reports whether t is a struct, map, slice or array type
// that decodes its own JSON (its pointer implements json.Unmarshaler or
// encoding.TextUnmarshaler), so that its JSON form is not its kind's.
func decodesItself(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array:
		pt := reflect.PointerTo(t)
		return pt.Implements(jsonUnmarshalerType) || pt.Implements(textUnmarshalerType)
	}
	return false
}

// intRange returns the bounds of a sized signed integer kind (int8, int16,
// int32).
func intRange(k reflect.Kind) (int64, int64) {
	bits := 32
	switch k {
	case reflect.Int8:
		bits = 8
	case reflect.Int16:
		bits = 16
	}
	return -1 << (bits - 1), 1<<(bits-1) - 1
}

// uintMax returns the largest value of a sized unsigned integer kind
// (uint8, uint16, uint32).
func uintMax(k reflect.Kind) uint64 {
	bits := 32
	switch k {
	case reflect.Uint8:
		bits = 8
	case reflect.Uint16:
		bits = 16
	}
	return 1<<bits - 1
}
