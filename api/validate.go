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
type rules struct {
	required           bool
	min, max           *float64
	exclMin, exclMax   *float64
	minLength          int // -1: none
	maxLength          int
	minItems, maxItems int
	pattern            *regexp.Regexp
	enum               []string
	format             string
	text               map[string]string // rule -> its argument as written
	nonZero            bool              // reached through a pointer: "" is a present value
}

func (r *rules) has(name string) bool { _, ok := r.text[name]; return ok }

// elemRules returns the rules that apply to each element of a slice: all
// but required, minItems and maxItems.
func (r *rules) elemRules() *rules {
	e := *r
	e.required = false
	e.minItems, e.maxItems = -1, -1
	e.text = make(map[string]string, len(r.text))
	for k, v := range r.text {
		if k != "required" && k != "minItems" && k != "maxItems" {
			e.text[k] = v
		}
	}
	return &e
}

var knownFormats = map[string]bool{"email": true, "uuid": true, "uri": true, "date-time": true, "date": true, "ipv4": true, "ipv6": true}

func parseRules(tag string) (*rules, error) {
	r := &rules{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, text: map[string]string{}}
	for tag != "" {
		var item string
		if strings.HasPrefix(tag, "pattern=") {
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
			if err != nil || !hasArg || math.IsNaN(f) {
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
				err = fmt.Errorf("unknown format %q (known: email, uuid, uri, date-time, date, ipv4, ipv6)", arg)
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
// collector it records every failure. It reports whether the value passed.
type check func(p unsafe.Pointer, e *collector) bool

// collector gathers the failures of one request, under the location path
// being walked.
type collector struct {
	msgs messages
	r    *http.Request
	path []byte
	errs []*FieldError
	skip map[string]bool // locations whose value failed to decode
}

func (e *collector) add(code, param string, t reflect.Type, p unsafe.Pointer) {
	loc := string(e.path)
	if e.skip[loc] {
		return
	}
	fe := &FieldError{Location: loc, Message: e.msgs.text(e.r, code, param)}
	if t != nil && code != "required" {
		fe.Value = valueAt(t, p)
	}
	e.errs = append(e.errs, fe)
}

// validators compiles checks for one naming mode (JSON bodies or forms),
// memoising struct types so that recursive types terminate.
type validators struct {
	form    bool
	structs map[reflect.Type]*structCheck
}

type structCheck struct {
	fields []fieldCheck
	done   bool
}

type fieldCheck struct {
	name   string // "" for an embedded struct: no path segment
	offset uintptr
	check  check
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

// compile returns the check of a value of type t under r (nil r: no
// rules of its own, only those nested in struct types), or nil if there is
// nothing to check.
func (v *validators) compile(t reflect.Type, r *rules) (check, error) {
	if r == nil {
		r = &rules{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	}
	if err := applicable(t, r); err != nil {
		return nil, err
	}
	switch {
	case t.Kind() == reflect.Pointer:
		elem, err := v.compile(t.Elem(), &rules{minLength: r.minLength, maxLength: r.maxLength, minItems: r.minItems, maxItems: r.maxItems,
			min: r.min, max: r.max, exclMin: r.exclMin, exclMax: r.exclMax, pattern: r.pattern, enum: r.enum, format: r.format, text: r.text, nonZero: true})
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
		return stringCheck(t, r), nil
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
		return countCheck(t, r, func(p unsafe.Pointer) int { return reflect.NewAt(t, p).Elem().Len() }), nil
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
	if list && k != reflect.Map {
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

func stringCheck(t reflect.Type, r *rules) check {
	if !r.required && r.minLength < 0 && r.maxLength < 0 && r.pattern == nil && r.enum == nil && r.format == "" {
		return nil
	}
	req, nonZero := r.required, r.nonZero
	minL, maxL, pat, enum, format := r.minLength, r.maxLength, r.pattern, r.enum, r.format
	minS, maxS, enumS := r.text["minLength"], r.text["maxLength"], r.text["enum"]
	return func(p unsafe.Pointer, e *collector) bool {
		s := *(*string)(p)
		if s == "" && !nonZero {
			if req {
				if e != nil {
					e.add("required", "", nil, nil)
				}
				return false
			}
			return true // an empty optional string skips the other rules
		}
		ok := true
		fail := func(code, param string) {
			ok = false
			if e != nil {
				e.add(code, param, t, p)
			}
		}
		if minL >= 0 || maxL >= 0 {
			n := utf8.RuneCountInString(s)
			if minL >= 0 && n < minL {
				if fail("minLength", minS); e == nil {
					return false
				}
			}
			if maxL >= 0 && n > maxL {
				if fail("maxLength", maxS); e == nil {
					return false
				}
			}
		}
		if enum != nil && !contains(enum, s) {
			if fail("enum", enumS); e == nil {
				return false
			}
		}
		if format != "" && !validFormat(format, s) {
			if fail("format", format); e == nil {
				return false
			}
		}
		if pat != nil && !pat.MatchString(s) {
			fail("pattern", pat.String())
		}
		return ok
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
	var enum []float64
	for _, s := range r.enum {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("enum value %q of a number is not a number", s)
		}
		enum = append(enum, f)
	}
	type bound struct {
		code  string
		limit float64
		text  string
		fails func(x, l float64) bool
	}
	var bounds []bound
	if r.min != nil {
		bounds = append(bounds, bound{"min", *r.min, r.text["min"], func(x, l float64) bool { return x < l }})
	}
	if r.max != nil {
		bounds = append(bounds, bound{"max", *r.max, r.text["max"], func(x, l float64) bool { return x > l }})
	}
	if r.exclMin != nil {
		bounds = append(bounds, bound{"exclusiveMin", *r.exclMin, r.text["exclusiveMin"], func(x, l float64) bool { return x <= l }})
	}
	if r.exclMax != nil {
		bounds = append(bounds, bound{"exclusiveMax", *r.exclMax, r.text["exclusiveMax"], func(x, l float64) bool { return x >= l }})
	}
	req, enumS := r.required, r.text["enum"]
	return func(p unsafe.Pointer, e *collector) bool {
		x := get(p)
		if req && x == 0 {
			if e != nil {
				e.add("required", "", nil, nil)
			}
			return false
		}
		ok := true
		for _, b := range bounds {
			if b.fails(x, b.limit) {
				ok = false
				if e == nil {
					return false
				}
				e.add(b.code, b.text, t, p)
			}
		}
		if enum != nil {
			found := false
			for _, f := range enum {
				if f == x {
					found = true
					break
				}
			}
			if !found {
				ok = false
				if e != nil {
					e.add("enum", enumS, t, p)
				}
			}
		}
		return ok
	}, nil
}

// countCheck checks required (non-empty), minItems and maxItems of a map or
// slice whose length n returns.
func countCheck(t reflect.Type, r *rules, n func(p unsafe.Pointer) int) check {
	if !r.required && r.minItems < 0 && r.maxItems < 0 {
		return nil
	}
	req, minI, maxI := r.required, r.minItems, r.maxItems
	minS, maxS := r.text["minItems"], r.text["maxItems"]
	return func(p unsafe.Pointer, e *collector) bool {
		l := n(p)
		if req && l == 0 {
			if e != nil {
				e.add("required", "", nil, nil)
			}
			return false
		}
		ok := true
		if minI >= 0 && l < minI {
			ok = false
			if e == nil {
				return false
			}
			e.add("minItems", minS, nil, nil)
		}
		if maxI >= 0 && l > maxI {
			ok = false
			if e != nil {
				e.add("maxItems", maxS, nil, nil)
			}
		}
		return ok
	}
}

func (v *validators) sliceCheck(t reflect.Type, r *rules) (check, error) {
	et := t.Elem()
	if t.Kind() == reflect.Slice && et.Kind() == reflect.Uint8 {
		return countCheck(t, r, func(p unsafe.Pointer) int { return (*sliceHeader)(p).len }), nil // []byte
	}
	elem, err := v.compile(et, r.elemRules())
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
	count := countCheck(t, r, n)
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

func (v *validators) structCheck(t reflect.Type) (check, error) {
	sc, seen := v.structs[t]
	if !seen {
		sc = &structCheck{}
		v.structs[t] = sc
		if err := v.fillStruct(sc, t, 0); err != nil {
			return nil, err
		}
		sc.done = true
		if len(sc.fields) == 0 {
			return nil, nil
		}
	} else if sc.done && len(sc.fields) == 0 {
		return nil, nil
	}
	return func(p unsafe.Pointer, e *collector) bool {
		ok := true
		for i := range sc.fields {
			f := &sc.fields[i]
			if e == nil {
				if !f.check(unsafe.Add(p, f.offset), nil) {
					return false
				}
				continue
			}
			mark := len(e.path)
			if f.name != "" {
				e.path = append(e.path, '.')
				e.path = append(e.path, f.name...)
			}
			if !f.check(unsafe.Add(p, f.offset), e) {
				ok = false
			}
			e.path = e.path[:mark]
		}
		return ok
	}, nil
}

func (v *validators) fillStruct(sc *structCheck, t reflect.Type, base uintptr) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			if err := v.fillStruct(sc, f.Type, base+f.Offset); err != nil {
				return err
			}
			continue
		}
		name := v.fieldName(f)
		if name == "" {
			continue
		}
		var r *rules
		if tag, ok := f.Tag.Lookup("validate"); ok {
			var err error
			if r, err = parseRules(tag); err != nil {
				return fmt.Errorf("field %s.%s: %v", t, f.Name, err)
			}
		}
		c, err := v.compile(f.Type, r)
		if err != nil {
			return fmt.Errorf("field %s.%s: %v", t, f.Name, err)
		}
		if c != nil {
			sc.fields = append(sc.fields, fieldCheck{name: name, offset: base + f.Offset, check: c})
		}
	}
	return nil
}

// validFormat reports whether s is a well-formed value of format.
func validFormat(format, s string) bool {
	switch format {
	case "email":
		return validEmail(s)
	case "uuid":
		return validUUID(s)
	case "uri":
		u, err := url.Parse(s)
		return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "" || u.Path != "")
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
		return err == nil && a.Is6()
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
