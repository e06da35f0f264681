package api

import (
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"
)

// rules are the parsed validate tag of one field:
//
//	validate:"required,min=1,max=100,minLength=1,maxLength=50,enum=a|b|c,format=email,minItems=1,maxItems=10,pattern=^[a-z]+$"
//
// pattern takes the rest of the tag (commas included), so it comes last.
//
// A rules value, compiled once per field, is the single thing that both the
// validator (compile, below) and the document (schemaRules in schema.go)
// read: neither looks at the tag again.
type rules struct {
	required             bool
	min, max             *float64
	exclMin, exclMax     *float64
	minLength, maxLength int // -1: none
	minItems, maxItems   int // -1: none
	pattern              *regexp.Regexp
	enum                 []string
	format               string
	text                 map[string]string // rule -> its argument as written
	elem                 *rules            // the rules of each element of a slice or array
}

func noRules() *rules {
	return &rules{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
}

// elemRules returns the rules that apply to each element of a slice: all
// but required, minItems and maxItems. Elements of nested slices get the
// same rules.
func (r *rules) elemRules() *rules {
	if r.elem != nil {
		return r.elem
	}
	e := *r
	e.required = false
	e.minItems, e.maxItems = -1, -1
	e.text = make(map[string]string, len(r.text))
	for k, v := range r.text {
		if k != "required" && k != "minItems" && k != "maxItems" {
			e.text[k] = v
		}
	}
	e.elem = &e
	r.elem = &e
	return &e
}

// withoutRequired returns r for the value behind a pointer: required is the
// pointer's (non-nil), the other rules apply to the value.
func (r *rules) withoutRequired() *rules {
	if !r.required {
		return r
	}
	c := *r
	c.required = false
	c.elem = nil
	return &c
}

// urlPattern is what format=url adds to format=uri, in the document as in
// the validator: an http or https scheme (lowercase), then a host that does
// not start with ':' and has no user info, then the end or a path, query or
// fragment.
const urlPattern = `^https?://[^/?#@:\s][^/?#@\s]*([/?#]|$)`

var urlRegexp = regexp.MustCompile(urlPattern)

var knownFormats = map[string]bool{"email": true, "uuid": true, "uri": true, "url": true, "date-time": true, "date": true, "ipv4": true, "ipv6": true}

func parseRules(tag string) (*rules, error) {
	r := noRules()
	r.text = map[string]string{}
	for tag != "" {
		var item string
		if strings.HasPrefix(strings.TrimSpace(tag), "pattern=") {
			item, tag = tag, ""
		} else {
			item, tag, _ = strings.Cut(tag, ",")
		}
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, arg, hasArg := strings.Cut(item, "=")
		r.text[name] = arg
		num := func() (float64, error) {
			f, err := strconv.ParseFloat(arg, 64)
			if err != nil || !hasArg || math.IsNaN(f) || math.IsInf(f, 0) {
				return 0, fmt.Errorf("%s needs a number, got %q", name, arg)
			}
			return f, nil
		}
		count := func() (int, error) {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("%s needs a non-negative integer, got %q", name, arg)
			}
			return n, nil
		}
		var err error
		switch name {
		case "required":
			r.required = true
		case "min", "max", "exclusiveMin", "exclusiveMax":
			var f float64
			if f, err = num(); err == nil {
				switch name {
				case "min":
					r.min = &f
				case "max":
					r.max = &f
				case "exclusiveMin":
					r.exclMin = &f
				default:
					r.exclMax = &f
				}
			}
		case "minLength":
			r.minLength, err = count()
		case "maxLength":
			r.maxLength, err = count()
		case "minItems":
			r.minItems, err = count()
		case "maxItems":
			r.maxItems, err = count()
		case "pattern":
			r.pattern, err = regexp.Compile(arg)
		case "enum":
			if arg == "" {
				err = fmt.Errorf("enum needs values: enum=a|b|c")
			}
			r.enum = strings.Split(arg, "|")
		case "format":
			if !knownFormats[arg] {
				err = fmt.Errorf("unknown format %q (known: email, uuid, uri, url, date-time, date, ipv4, ipv6)", arg)
			}
			r.format = arg
		default:
			err = fmt.Errorf("unknown rule %q", name)
		}
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// check validates the value at p. With e nil it stops at the first failure
// (the fast path of a valid request, which allocates nothing); with a
// collector it records every failure, at most one per location. It reports
// whether the value passed.
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

func (e *collector) skipped(loc string) bool {
	for _, s := range e.skip {
		if loc == s || len(loc) > len(s) && loc[:len(s)] == s && (loc[len(s)] == '.' || loc[len(s)] == '[') {
			return true
		}
	}
	return false
}

func (e *collector) add(code, param string, t reflect.Type, p unsafe.Pointer) {
	loc := string(e.path)
	if len(e.skip) > 0 && e.skipped(loc) {
		return
	}
	fe := &FieldError{Location: loc, Message: e.msgs.text(e.r, code, param)}
	if t != nil && code != "required" {
		fe.Value = errorValue(t, p)
	}
	e.errs = append(e.errs, fe)
}

// errorValue returns the value of type t at p for an error report: a
// string cut to maxValueLen bytes plus valueEllipsis, a number as it is.
func errorValue(t reflect.Type, p unsafe.Pointer) any {
	if t.Kind() == reflect.String {
		return truncate(*(*string)(p))
	}
	return valueAt(t, p)
}

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

func newValidators(form bool) *validators {
	return &validators{form: form, structs: map[reflect.Type]*structCheck{}}
}

// fieldName returns the name a struct field has in the wire format, or ""
// if the field is not part of it.
func (v *validators) fieldName(f reflect.StructField) string {
	if v.form {
		if n, ok := f.Tag.Lookup("form"); ok {
			if n == "-" {
				return ""
			}
			return n
		}
	}
	return jsonName(f)
}

// jsonName returns the JSON member name of f, "" if it has none.
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		if !f.IsExported() {
			return ""
		}
		name = f.Name
	}
	return name
}

// compile returns the check of a value of type t under r (nil r: no rules
// of its own, only those nested in struct types) at position pos, or nil if
// there is nothing to check.
func (v *validators) compile(t reflect.Type, r *rules, pos position) (check, error) {
	if r == nil {
		r = noRules()
	}
	if err := applicable(t, r); err != nil {
		return nil, err
	}
	switch {
	case t.Kind() == reflect.Pointer:
		elem, err := v.compile(t.Elem(), r.withoutRequired(), asValue)
		if err != nil {
			return nil, err
		}
		if elem == nil && !r.required {
			return nil, nil
		}
		req := r.required
		return func(p unsafe.Pointer, e *collector) bool {
			q := *(*unsafe.Pointer)(p)
			if q == nil {
				if req && e != nil {
					e.add("required", "", nil, nil)
				}
				return !req
			}
			return elem == nil || elem(q, e)
		}, nil
	case t == timeType:
		if !r.required {
			return nil, nil
		}
		return func(p unsafe.Pointer, e *collector) bool {
			if (*time.Time)(p).IsZero() {
				if e != nil {
					e.add("required", "", nil, nil)
				}
				return false
			}
			return true
		}, nil
	case t.Kind() == reflect.String:
		c, ambiguous := stringCheck(t, r, pos)
		if ambiguous && !v.form {
			v.ambiguous = true
		}
		return c, nil
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		return numberCheck(t, r)
	case t.Kind() == reflect.Bool:
		if !r.required {
			return nil, nil
		}
		return func(p unsafe.Pointer, e *collector) bool {
			if !*(*bool)(p) {
				if e != nil {
					e.add("required", "", nil, nil)
				}
				return false
			}
			return true
		}, nil
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return v.sliceCheck(t, r)
	case t.Kind() == reflect.Map:
		if et := t.Elem(); et.Kind() == reflect.Struct || et.Kind() == reflect.Pointer && et.Elem().Kind() == reflect.Struct {
			// compiled for the JSON walker and the document; map values
			// carry no rules of their own
			if _, err := v.compile(et, nil, asValue); err != nil {
				return nil, err
			}
		}
		return countCheck(r, func(p unsafe.Pointer) int { return reflect.NewAt(t, p).Elem().Len() }), nil
	case t.Kind() == reflect.Interface:
		if !r.required {
			return nil, nil
		}
		return func(p unsafe.Pointer, e *collector) bool {
			if *(*any)(p) == nil { // same layout for non-empty interfaces: a nil type word
				if e != nil {
					e.add("required", "", nil, nil)
				}
				return false
			}
			return true
		}, nil
	case t.Kind() == reflect.Struct:
		return v.structCheck(t)
	}
	return nil, nil
}

// applicable rejects rules that cannot apply to t, at registration.
func applicable(t reflect.Type, r *rules) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	k := t.Kind()
	str := k == reflect.String
	num := k >= reflect.Int && k <= reflect.Float64
	list := k == reflect.Slice || k == reflect.Array || k == reflect.Map
	if list && k != reflect.Map && t != bytesType {
		// element rules are checked on the element
		return nil
	}
	for name := range r.text {
		ok := true
		switch name {
		case "minLength", "maxLength", "pattern", "format":
			ok = str
		case "min", "max", "exclusiveMin", "exclusiveMax":
			ok = num
		case "enum":
			ok = str || num
		case "minItems", "maxItems":
			ok = list
		}
		if !ok {
			return fmt.Errorf("rule %s does not apply to %s", name, t)
		}
	}
	return nil
}

// stringFails returns the first rule (in the order minLength, maxLength,
// enum, format, pattern) that s fails, and its argument, or "" if s passes
// them all. required is not among them.
func (r *rules) stringFails(s string) (code, param string) {
	if r.minLength >= 0 || r.maxLength >= 0 {
		n := utf8.RuneCountInString(s)
		if r.minLength >= 0 && n < r.minLength {
			return "minLength", r.text["minLength"]
		}
		if r.maxLength >= 0 && n > r.maxLength {
			return "maxLength", r.text["maxLength"]
		}
	}
	if r.enum != nil && !contains(r.enum, s) {
		return "enum", r.text["enum"]
	}
	if r.format != "" && !validFormat(r.format, s) {
		return "format", r.format
	}
	if r.pattern != nil && !r.pattern.MatchString(s) {
		return "pattern", r.pattern.String()
	}
	return "", ""
}

// stringCheck returns the check of a string under r at pos, and whether it
// is ambiguous: an optional field whose rules refuse "", for which an
// absent JSON member and a sent "" differ.
func stringCheck(t reflect.Type, r *rules, pos position) (check, bool) {
	if !r.required && r.minLength < 0 && r.maxLength < 0 && r.pattern == nil && r.enum == nil && r.format == "" {
		return nil, false
	}
	req := r.required
	emptyFails, _ := r.stringFails("")
	ambiguous := pos == asField && !req && emptyFails != ""
	return func(p unsafe.Pointer, e *collector) bool {
		s := *(*string)(p)
		if s == "" {
			if req {
				if e != nil {
					e.add("required", "", nil, nil)
				}
				return false
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
			if e != nil {
				e.add(code, param, t, p)
			}
			return false
		}
		return true
	}, ambiguous
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// numberFails returns the first rule that x fails (min, max, exclusiveMin,
// exclusiveMax, enum) and its argument, or "".
func (r *rules) numberFails(x float64, enum []float64) (code, param string) {
	switch {
	case r.min != nil && x < *r.min:
		return "min", r.text["min"]
	case r.max != nil && x > *r.max:
		return "max", r.text["max"]
	case r.exclMin != nil && x <= *r.exclMin:
		return "exclusiveMin", r.text["exclusiveMin"]
	case r.exclMax != nil && x >= *r.exclMax:
		return "exclusiveMax", r.text["exclusiveMax"]
	}
	if enum != nil {
		for _, f := range enum {
			if f == x {
				return "", ""
			}
		}
		return "enum", r.text["enum"]
	}
	return "", ""
}

func (r *rules) numberEnum() ([]float64, error) {
	var enum []float64
	for _, s := range r.enum {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("enum value %q of a number is not a number", s)
		}
		enum = append(enum, f)
	}
	return enum, nil
}

func numberCheck(t reflect.Type, r *rules) (check, error) {
	if !r.required && r.min == nil && r.max == nil && r.exclMin == nil && r.exclMax == nil && r.enum == nil {
		return nil, nil
	}
	k := t.Kind()
	var get func(p unsafe.Pointer) float64
	switch {
	case k >= reflect.Int && k <= reflect.Int64:
		get = func(p unsafe.Pointer) float64 { return float64(getInt(p, k)) }
	case k >= reflect.Uint && k <= reflect.Uintptr:
		get = func(p unsafe.Pointer) float64 { return float64(getUint(p, k)) }
	case k == reflect.Float32:
		get = func(p unsafe.Pointer) float64 { return float64(*(*float32)(p)) }
	default:
		get = func(p unsafe.Pointer) float64 { return *(*float64)(p) }
	}
	enum, err := r.numberEnum()
	if err != nil {
		return nil, err
	}
	req := r.required
	return func(p unsafe.Pointer, e *collector) bool {
		x := get(p)
		if req && x == 0 {
			if e != nil {
				e.add("required", "", nil, nil)
			}
			return false
		}
		if code, param := r.numberFails(x, enum); code != "" {
			if e != nil {
				e.add(code, param, t, p)
			}
			return false
		}
		return true
	}, nil
}

// countCheck checks required (non-empty), minItems and maxItems of a map or
// slice whose length n returns.
func countCheck(r *rules, n func(p unsafe.Pointer) int) check {
	if !r.required && r.minItems < 0 && r.maxItems < 0 {
		return nil
	}
	req, minI, maxI := r.required, r.minItems, r.maxItems
	minS, maxS := r.text["minItems"], r.text["maxItems"]
	return func(p unsafe.Pointer, e *collector) bool {
		l := n(p)
		code, param := "", ""
		switch {
		case req && l == 0:
			code = "required"
		case minI >= 0 && l < minI:
			code, param = "minItems", minS
		case maxI >= 0 && l > maxI:
			code, param = "maxItems", maxS
		default:
			return true
		}
		if e != nil {
			e.add(code, param, nil, nil)
		}
		return false
	}
}

func (v *validators) sliceCheck(t reflect.Type, r *rules) (check, error) {
	et := t.Elem()
	if t.Kind() == reflect.Slice && et.Kind() == reflect.Uint8 {
		return countCheck(r, func(p unsafe.Pointer) int { return (*sliceHeader)(p).len }), nil // []byte
	}
	elem, err := v.compile(et, r.elemRules(), asValue)
	if err != nil {
		return nil, err
	}
	var n func(p unsafe.Pointer) int
	var data func(p unsafe.Pointer) unsafe.Pointer
	if t.Kind() == reflect.Slice {
		n = func(p unsafe.Pointer) int { return (*sliceHeader)(p).len }
		data = func(p unsafe.Pointer) unsafe.Pointer { return (*sliceHeader)(p).data }
	} else {
		l := t.Len()
		n = func(unsafe.Pointer) int { return l }
		data = func(p unsafe.Pointer) unsafe.Pointer { return p }
	}
	count := countCheck(r, n)
	if elem == nil {
		return count, nil
	}
	size := et.Size()
	return func(p unsafe.Pointer, e *collector) bool {
		ok := true
		if count != nil && !count(p, e) {
			ok = false
			if e == nil {
				return false
			}
		}
		l, d := n(p), data(p)
		for i := 0; i < l; i++ {
			if e == nil {
				if !elem(unsafe.Add(d, uintptr(i)*size), nil) {
					return false
				}
				continue
			}
			mark := len(e.path)
			e.path = append(e.path, '[')
			e.path = strconv.AppendInt(e.path, int64(i), 10)
			e.path = append(e.path, ']')
			if !elem(unsafe.Add(d, uintptr(i)*size), e) {
				ok = false
			}
			e.path = e.path[:mark]
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

func (v *validators) structCheck(t reflect.Type) (check, error) {
	sc, seen := v.structs[t]
	if !seen {
		sc = &structCheck{byName: map[string]int{}}
		v.structs[t] = sc
		if err := v.fillStruct(sc, t); err != nil {
			delete(v.structs, t)
			return nil, err
		}
		sc.done = true
		for _, f := range sc.fields {
			if f.check != nil {
				sc.active = append(sc.active, f)
			}
		}
		if !sc.any {
			return nil, nil
		}
	} else if sc.done && !sc.any {
		return nil, nil
	}
	return func(p unsafe.Pointer, e *collector) bool {
		ok := true
		for i := range sc.active {
			f := &sc.active[i]
			if e == nil {
				if !f.check(unsafe.Add(p, f.offset), nil) {
					return false
				}
				continue
			}
			mark := len(e.path)
			e.path = append(e.path, '.')
			e.path = append(e.path, f.name...)
			switch {
			case f.presence && e.present != nil && !e.present[string(e.path)]:
				// An absent member (its zero value): required, or nothing
				// to check.
				if f.required {
					ok = false
					e.add("required", "", nil, nil)
				}
			case !f.check(unsafe.Add(p, f.offset), e):
				ok = false
			}
			e.path = e.path[:mark]
		}
		return ok
	}, nil
}

// fillStruct compiles the fields of t: its own and, as encoding/json does,
// those of embedded structs without a JSON name, where a shallower field
// hides a deeper one of the same name.
func (v *validators) fillStruct(sc *structCheck, t reflect.Type) error {
	var walk func(t reflect.Type, base uintptr, depth int) error
	walk = func(t reflect.Type, base uintptr, depth int) error {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" && (!v.form || f.Tag.Get("form") == "") {
				if err := walk(f.Type, base+f.Offset, depth+1); err != nil {
					return err
				}
				continue
			}
			name := v.fieldName(f)
			if name == "" {
				continue
			}
			if j, dup := sc.byName[name]; dup {
				if sc.fields[j].depth <= depth {
					continue
				}
				sc.fields = append(sc.fields[:j], sc.fields[j+1:]...)
				for k, g := range sc.fields {
					sc.byName[g.name] = k
				}
			}
			var r *rules
			if tag, ok := f.Tag.Lookup("validate"); ok {
				var err error
				if r, err = parseRules(tag); err != nil {
					return fmt.Errorf("field %s.%s: %v", t, f.Name, err)
				}
			}
			c, err := v.compile(f.Type, r, asField)
			if err != nil {
				return fmt.Errorf("field %s.%s: %v", t, f.Name, err)
			}
			fc := fieldCheck{name: name, sf: f, offset: base + f.Offset, typ: f.Type, rules: r, check: c, depth: depth}
			fc.required = r != nil && r.required || zeroFails(f.Type, c)
			fc.presence = fc.required
			if r != nil && !fc.required && f.Type.Kind() == reflect.String {
				code, _ := r.stringFails("")
				fc.presence = code != ""
			}
			sc.byName[name] = len(sc.fields)
			sc.fields = append(sc.fields, fc)
			if c != nil {
				sc.any = true
			}
		}
		return nil
	}
	return walk(t, 0, 0)
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

// validFormat reports whether s is a well-formed value of format.
func validFormat(format, s string) bool {
	switch format {
	case "email":
		return validEmail(s)
	case "uuid":
		return validUUID(s)
	case "uri":
		return validURI(s)
	case "url":
		return urlRegexp.MatchString(s) && validURI(s)
	case "date-time":
		_, err := time.Parse(time.RFC3339Nano, s)
		return err == nil
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	case "ipv4":
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is4()
	case "ipv6":
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is6() && a.Zone() == ""
	}
	return true
}

// validURI accepts an absolute URI (RFC 3986: a scheme, then anything that
// parses), with an IPv6 host only in brackets.
func validURI(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return false
	}
	if h := u.Hostname(); strings.Contains(h, ":") {
		a, err := netip.ParseAddr(h)
		return strings.Contains(u.Host, "[") && err == nil && a.Is6() && a.Zone() == ""
	}
	return true
}

// validEmail accepts local@domain with a dot-separated domain of letters,
// digits and hyphens, and a local part without blanks, as HTML's
// input type=email does.
func validEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 || len(s) > 254 {
		return false
	}
	for i := 0; i < at; i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>[]:;@\\,\"", c) >= 0 {
			return false
		}
	}
	domain := s[at+1:]
	for {
		l, rest, more := strings.Cut(domain, ".")
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
		if !more {
			return true
		}
		domain = rest
	}
}

// validUUID accepts the 8-4-4-4-12 hexadecimal form.
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
