package api

import (
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"
)

// check validates the value at p (of the type it was compiled for). With e
// nil it stops at the first failure (the fast path of a valid request,
// which allocates nothing); with a collector it records every failure, at
// most one per location. It reports whether the value passed.
//
// Checks reach values through unsafe pointers: a field is its struct's
// address plus the field's offset, computed at registration, read through
// a typed pointer conversion. Through reflect.Value instead (Field, then
// String, Int, ...), the validator was measurably slower:
//
//   - the 5-field struct of the validated-json scenario, validated by a
//     reflect-only version of this package side by side with this one:
//     114 -> 131 ns per Check (+15%, benchstat p=0.002, n=6; again 116 ->
//     133 ns, n=10), with
//     cd bench && go test -run '^$' -bench '^BenchmarkValidator$/^plinth-api$' -benchtime 500ms -count 10
//     (GOMAXPROCS=1, taskset -c 1, the two test binaries interleaved);
//   - the same struct's checks in their reflect.Value form, in this
//     package: 111 -> 124 ns (+11%, p<0.001, n=20), with
//     go test ./api -run '^$' -bench 'ValidateFieldAccess' -benchtime 100ms -count 20.
//
// On a whole typed request (BenchmarkValidatedJSON/plinth-api, 2.2 us) the
// difference is within this VM's noise. The checks and the parameter
// parsers (parseFunc) are the package's only unsafe code; their pointer
// operations are the two functions of unsafe.go.
type check func(p unsafe.Pointer, e *collector) bool

// maxValueLen bounds the "value" of a field error: a longer string is cut
// to its first maxValueLen bytes (at a character boundary) followed by
// valueEllipsis, so that a huge invalid value cannot make a huge error body.
const (
	maxValueLen   = 64
	valueEllipsis = "…"
)

// collector gathers the failures of one request, under the location path
// being walked.
type collector struct {
	msgs messages
	r    *http.Request
	path []byte
	errs []*FieldError
	// skip lists locations that already have an error (a value of the wrong
	// type, say): neither they nor what is below them are checked again.
	skip []string
	// present, for a JSON body, holds the locations of the members that the
	// body has (not null), for the fields whose absence matters: an empty
	// string is then absent or a value, and a missing required field is
	// "is required" rather than its zero value's failure. nil: no JSON (a
	// parameter, a form, Checker): an empty string is absent.
	present map[string]bool
}

// skipped reports whether loc is, or is below, a location in e.skip.
func (e *collector) skipped(loc string) bool {
	for _, s := range e.skip {
		if loc == s || len(loc) > len(s) && loc[:len(s)] == s && (loc[len(s)] == '.' || loc[len(s)] == '[') {
			return true
		}
	}
	return false
}

// add records a failure of the rule code (with its argument param) at the
// current path, unless the path is skipped. The offending value, of type t
// at p, is reported with it; t is nil for none (required, counts).
func (e *collector) add(code, param string, t reflect.Type, p unsafe.Pointer) {
	loc := string(e.path)
	if len(e.skip) > 0 && e.skipped(loc) {
		return
	}
	fe := &FieldError{Location: loc, Message: e.msgs.text(e.r, code, param)}
	if t != nil && code != "required" {
		fe.Value = errorValue(reflect.NewAt(t, p).Elem())
	}
	e.errs = append(e.errs, fe)
}

// fail records a failure when there is a collector (see add), and reports
// false.
func (e *collector) fail(code, param string, t reflect.Type, p unsafe.Pointer) bool {
	if e != nil {
		e.add(code, param, t, p)
	}
	return false
}

// enter appends a member name (".name") or an index ("[3]") to the path
// and returns the mark that leave takes to remove it.
func (e *collector) enter(name string, index int) int {
	mark := len(e.path)
	if name != "" {
		e.path = append(e.path, '.')
		e.path = append(e.path, name...)
	} else {
		e.path = append(e.path, '[')
		e.path = strconv.AppendInt(e.path, int64(index), 10)
		e.path = append(e.path, ']')
	}
	return mark
}

// leave restores the path to mark.
func (e *collector) leave(mark int) { e.path = e.path[:mark] }

// truncate cuts s to maxValueLen bytes at a character boundary and marks
// the cut.
func truncate(s string) string {
	if len(s) <= maxValueLen {
		return s
	}
	n := maxValueLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + valueEllipsis
}

// errorValue returns v, a string or a number, for an error report: a string
// cut to maxValueLen bytes plus valueEllipsis, a number as it is (with its
// type's JSON form).
func errorValue(v reflect.Value) any {
	if v.Kind() == reflect.String {
		return truncate(v.String())
	}
	if v.CanInterface() {
		return v.Interface()
	}
	switch k := v.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		return v.Int()
	case k >= reflect.Uint && k <= reflect.Uintptr:
		return v.Uint()
	case k == reflect.Float32:
		return float32(v.Float())
	case k == reflect.Float64:
		return v.Float()
	}
	return nil
}

// position says what an empty string means where a value sits.
type position uint8

const (
	// asField: a struct field or a parameter, whose absence leaves "": an
	// empty string there is absent (skips the string rules) unless the
	// field is required, or the JSON body says it was sent.
	asField position = iota
	// asValue: an element, the value behind a pointer, a body: an empty
	// string there was sent, and the rules apply to it.
	asValue
)

// validators compiles checks for one naming mode (JSON bodies or forms),
// memoising struct types so that recursive types terminate. After
// registration it is only read: the document and the JSON walker of the
// error path consult its compiled structs.
type validators struct {
	form    bool
	structs map[reflect.Type]*structCheck
	// ambiguous is set when some reachable struct field is an optional
	// string whose rules refuse "": for it, a JSON body's "" is a value
	// while an absent member is not, so a body containing "" is checked
	// with the body's presence information.
	ambiguous bool
}

// structCheck is the compiled rules of one struct type: every member it
// has on the wire, in order, with its rules and check.
type structCheck struct {
	fields []fieldCheck
	byName map[string]int // wire name -> index in fields
	active []fieldCheck   // the fields that have a check, which validation walks
	any    bool           // some field has a check
	done   bool
}

// fieldCheck is one member of a struct on the wire.
type fieldCheck struct {
	name   string // wire name
	sf     reflect.StructField
	offset uintptr // from the start of the struct, embedded structs included
	typ    reflect.Type
	rules  *rules // nil: none
	check  check  // nil: nothing to check
	// required is what the document says: the field must be present,
	// because of the required rule or because its zero value (what an
	// absent member leaves) fails its rules.
	required bool
	// presence: the field's absence matters (required, or an optional
	// string whose rules refuse ""), so the JSON walker records whether a
	// body has it.
	presence bool
	depth    int
}

// newValidators returns a compiler for JSON names, or form names when form
// is set.
func newValidators(form bool) *validators {
	return &validators{form: form, structs: map[reflect.Type]*structCheck{}}
}

// fieldName returns the name a struct field has in the wire format, or ""
// if the field is not part of it: the form tag's name for forms, else the
// JSON name.
func (v *validators) fieldName(f reflect.StructField) string {
	if v.form && !ignoredField(f) {
		if n, ok := f.Tag.Lookup("form"); ok {
			if n == "-" {
				return ""
			}
			return n
		}
	}
	return jsonName(f)
}

// jsonName returns the JSON member name of f, "" if encoding/json ignores
// the field.
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if tag == "-" || ignoredField(f) {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name
}

// ignoredField reports whether encoding/json ignores f whatever its tag:
// an unexported field, unless it embeds a struct (whose exported fields
// are promoted).
func ignoredField(f reflect.StructField) bool {
	if f.IsExported() {
		return false
	}
	if !f.Anonymous {
		return true
	}
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() != reflect.Struct
}

// compile returns the check of a value of type t under r (nil r: no rules
// of its own, only those nested in struct types) at position pos, or nil if
// there is nothing to check. It fails on a rule that does not apply to t.
func (v *validators) compile(t reflect.Type, r *rules, pos position) (check, error) {
	if r == nil {
		r = noRules()
	}
	if err := applicable(t, r); err != nil {
		return nil, err
	}
	switch k := t.Kind(); {
	case k == reflect.Pointer:
		return v.pointerCheck(t, r)
	case t == timeType:
		return requiredCheck(r, func(p unsafe.Pointer) bool { return at[time.Time](p).IsZero() }), nil
	case k == reflect.String:
		c, ambiguous := stringCheck(t, r, pos)
		if ambiguous && !v.form {
			v.ambiguous = true
		}
		return c, nil
	case k >= reflect.Int && k <= reflect.Float64:
		return numberCheck(t, r)
	case k == reflect.Bool:
		return requiredCheck(r, func(p unsafe.Pointer) bool { return !*at[bool](p) }), nil
	case k == reflect.Slice || k == reflect.Array:
		return v.sliceCheck(t, r)
	case k == reflect.Map:
		return v.mapCheck(t, r)
	case k == reflect.Interface:
		// the same layout for non-empty interfaces: a nil type word
		return requiredCheck(r, func(p unsafe.Pointer) bool { return *at[any](p) == nil }), nil
	case k == reflect.Struct:
		return v.structCheck(t)
	}
	return nil, nil
}

// requiredCheck returns the check of required alone, for a value that is
// absent when zero says so; nil when r does not require it.
func requiredCheck(r *rules, zero func(p unsafe.Pointer) bool) check {
	if !r.required {
		return nil
	}
	return func(p unsafe.Pointer, e *collector) bool {
		if zero(p) {
			return e.fail("required", "", nil, nil)
		}
		return true
	}
}

// pointerCheck returns the check of a pointer: required makes it non-nil,
// the other rules apply to the value it points to.
func (v *validators) pointerCheck(t reflect.Type, r *rules) (check, error) {
	elem, err := v.compile(t.Elem(), r.withoutRequired(), asValue)
	if err != nil {
		return nil, err
	}
	if elem == nil && !r.required {
		return nil, nil
	}
	req := r.required
	return func(p unsafe.Pointer, e *collector) bool {
		q := *at[unsafe.Pointer](p)
		if q == nil {
			if req {
				return e.fail("required", "", nil, nil)
			}
			return true
		}
		return elem == nil || elem(q, e)
	}, nil
}

// mapCheck returns the check of a map's size. The values' struct types
// are compiled for the JSON walker and the document; map values carry no
// rules of their own.
func (v *validators) mapCheck(t reflect.Type, r *rules) (check, error) {
	if et := t.Elem(); et.Kind() == reflect.Struct || et.Kind() == reflect.Pointer && et.Elem().Kind() == reflect.Struct {
		if _, err := v.compile(et, nil, asValue); err != nil {
			return nil, err
		}
	}
	return countCheck(r, func(p unsafe.Pointer) int { return reflect.NewAt(t, p).Elem().Len() }), nil
}

// stringCheck returns the check of a string of type t under r at pos, and
// whether it is ambiguous: an optional field whose rules refuse "", for
// which an absent JSON member and a sent "" differ.
func stringCheck(t reflect.Type, r *rules, pos position) (check, bool) {
	if !r.hasStringRules() {
		return nil, false
	}
	req := r.required
	emptyFails, _ := r.stringFails("")
	ambiguous := pos == asField && !req && emptyFails != ""
	return func(p unsafe.Pointer, e *collector) bool {
		s := *at[string](p)
		if s == "" {
			if req {
				return e.fail("required", "", nil, nil)
			}
			if pos == asField && (e == nil || e.present == nil) {
				// Without a JSON body to tell (a parameter, a form, the
				// fast pass), an empty optional string is absent and skips
				// the rules. With one, the struct check has passed over
				// absent members already: this "" was sent.
				return true
			}
		}
		if code, param := r.stringFails(s); code != "" {
			return e.fail(code, param, t, p)
		}
		return true
	}, ambiguous
}

// numberCheck returns the check of a number of type t under r: required
// refuses 0, then the bounds and the enum.
func numberCheck(t reflect.Type, r *rules) (check, error) {
	if !r.hasNumberRules() {
		return nil, nil
	}
	get := numberReader(t.Kind())
	enum, err := r.numberEnum()
	if err != nil {
		return nil, err
	}
	req := r.required
	return func(p unsafe.Pointer, e *collector) bool {
		x := get(p)
		if req && x == 0 {
			return e.fail("required", "", nil, nil)
		}
		if code, param := r.numberFails(x, enum); code != "" {
			return e.fail(code, param, t, p)
		}
		return true
	}, nil
}

// numberReader returns the function that reads a number of kind k as a
// float64.
func numberReader(k reflect.Kind) func(p unsafe.Pointer) float64 {
	switch {
	case k >= reflect.Int && k <= reflect.Int64:
		load, _ := intAccess(k)
		return func(p unsafe.Pointer) float64 { return float64(load(p)) }
	case k >= reflect.Uint && k <= reflect.Uintptr:
		load, _ := uintAccess(k)
		return func(p unsafe.Pointer) float64 { return float64(load(p)) }
	case k == reflect.Float32:
		return func(p unsafe.Pointer) float64 { return float64(*at[float32](p)) }
	}
	return func(p unsafe.Pointer) float64 { return *at[float64](p) }
}

// countCheck checks required (non-empty), minItems and maxItems of a map or
// slice whose length n returns; nil when r has none of them.
func countCheck(r *rules, n func(p unsafe.Pointer) int) check {
	if !r.required && r.minItems < 0 && r.maxItems < 0 {
		return nil
	}
	req, minI, maxI := r.required, r.minItems, r.maxItems
	minS, maxS := r.text["minItems"], r.text["maxItems"]
	return func(p unsafe.Pointer, e *collector) bool {
		l := n(p)
		switch {
		case req && l == 0:
			return e.fail("required", "", nil, nil)
		case minI >= 0 && l < minI:
			return e.fail("minItems", minS, nil, nil)
		case maxI >= 0 && l > maxI:
			return e.fail("maxItems", maxS, nil, nil)
		}
		return true
	}
}

// sliceCheck returns the check of a slice or array: its count rules, then
// r's element rules (and the element type's own) on each element, located
// by index. A []byte has count rules only.
func (v *validators) sliceCheck(t reflect.Type, r *rules) (check, error) {
	et := t.Elem()
	n := func(p unsafe.Pointer) int { return at[sliceHeader](p).len }
	data := func(p unsafe.Pointer) unsafe.Pointer { return at[sliceHeader](p).data }
	if t.Kind() == reflect.Array {
		l := t.Len()
		n = func(unsafe.Pointer) int { return l }
		data = func(p unsafe.Pointer) unsafe.Pointer { return p }
	} else if et.Kind() == reflect.Uint8 {
		return countCheck(r, n), nil // []byte
	}
	elem, err := v.compile(et, r.elemRules(), asValue)
	if err != nil {
		return nil, err
	}
	count := countCheck(r, n)
	if elem == nil {
		return count, nil
	}
	size := et.Size()
	return func(p unsafe.Pointer, e *collector) bool {
		ok := count == nil || count(p, e)
		if !ok && e == nil {
			return false
		}
		d := data(p)
		for i, l := 0, n(p); i < l; i++ {
			q := addr(d, uintptr(i)*size)
			if e == nil {
				if !elem(q, nil) {
					return false
				}
				continue
			}
			mark := e.enter("", i)
			if !elem(q, e) {
				ok = false
			}
			e.leave(mark)
		}
		return ok
	}, nil
}

// structInfo returns the compiled struct t, compiling it if needed.
func (v *validators) structInfo(t reflect.Type) (*structCheck, error) {
	if sc, ok := v.structs[t]; ok {
		return sc, nil
	}
	if _, err := v.structCheck(t); err != nil {
		return nil, err
	}
	return v.structs[t], nil
}

// structCheck returns the check of the struct type t, compiling its fields
// once (a recursive type gets the check of its compilation in progress);
// nil when no field has anything to check.
func (v *validators) structCheck(t reflect.Type) (check, error) {
	sc, seen := v.structs[t]
	if !seen {
		sc = &structCheck{byName: map[string]int{}}
		v.structs[t] = sc
		if err := v.fillStruct(sc, t, 0, 0); err != nil {
			delete(v.structs, t)
			return nil, err
		}
		sc.done = true
		for _, f := range sc.fields {
			if f.check != nil {
				sc.active = append(sc.active, f)
			}
		}
	}
	if sc.done && !sc.any {
		return nil, nil
	}
	return sc.check, nil
}

// check validates the fields of the struct at p. With a JSON body's
// presence information, an absent member is "is required" if required and
// skipped otherwise.
func (sc *structCheck) check(p unsafe.Pointer, e *collector) bool {
	ok := true
	for i := range sc.active {
		f := &sc.active[i]
		if e == nil {
			if !f.check(addr(p, f.offset), nil) {
				return false
			}
			continue
		}
		mark := e.enter(f.name, 0)
		switch {
		case f.presence && e.present != nil && !e.present[string(e.path)]:
			// An absent member (its zero value): required, or nothing
			// to check.
			if f.required {
				ok = false
				e.add("required", "", nil, nil)
			}
		case !f.check(addr(p, f.offset), e):
			ok = false
		}
		e.leave(mark)
	}
	return ok
}

// fillStruct compiles the fields of t (at offset base in the struct being
// compiled, depth levels of embedding down): its own and, as encoding/json
// does, those of embedded structs without a JSON name, where a shallower
// field hides a deeper one of the same name.
func (v *validators) fillStruct(sc *structCheck, t reflect.Type, base uintptr, depth int) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" && (!v.form || f.Tag.Get("form") == "") {
			if err := v.fillStruct(sc, f.Type, base+f.Offset, depth+1); err != nil {
				return err
			}
			continue
		}
		name := v.fieldName(f)
		if name == "" || !sc.hide(name, depth) {
			continue
		}
		fc, err := v.fieldCheck(t, f, name)
		if err != nil {
			return err
		}
		fc.offset, fc.depth = base+f.Offset, depth
		sc.byName[name] = len(sc.fields)
		sc.fields = append(sc.fields, fc)
		if fc.check != nil {
			sc.any = true
		}
	}
	return nil
}

// hide makes room for a field called name at depth: it reports false if a
// field of that name at the same depth or shallower hides the new one, and
// removes a deeper one that the new one hides.
func (sc *structCheck) hide(name string, depth int) bool {
	j, dup := sc.byName[name]
	if !dup {
		return true
	}
	if sc.fields[j].depth <= depth {
		return false
	}
	sc.fields = append(sc.fields[:j], sc.fields[j+1:]...)
	for k, g := range sc.fields {
		sc.byName[g.name] = k
	}
	return true
}

// fieldCheck compiles the field f of the struct t, on the wire as name:
// its rules, its check, and whether it is required and its presence
// matters.
func (v *validators) fieldCheck(t reflect.Type, f reflect.StructField, name string) (fieldCheck, error) {
	var r *rules
	if tag, ok := f.Tag.Lookup("validate"); ok {
		var err error
		if r, err = parseRules(tag); err != nil {
			return fieldCheck{}, fmt.Errorf("field %s.%s: %v", t, f.Name, err)
		}
	}
	c, err := v.compile(f.Type, r, asField)
	if err != nil {
		return fieldCheck{}, fmt.Errorf("field %s.%s: %v", t, f.Name, err)
	}
	fc := fieldCheck{name: name, sf: f, typ: f.Type, rules: r, check: c}
	fc.required = r != nil && r.required || zeroFails(f.Type, c)
	fc.presence = fc.required
	if r != nil && !fc.required && f.Type.Kind() == reflect.String {
		code, _ := r.stringFails("")
		fc.presence = code != ""
	}
	return fc, nil
}

// zeroFails reports whether the zero value of t fails c: what an absent
// member leaves. A field for which it does is required, and the document
// says so.
func zeroFails(t reflect.Type, c check) bool {
	if c == nil {
		return false
	}
	return !c(reflect.New(t).UnsafePointer(), nil)
}
