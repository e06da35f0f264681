package api

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// rules are the parsed validate tag of one field:
//
//	validate:"required,min=1,max=100,minLength=1,maxLength=50,enum=a|b|c,format=email,minItems=1,maxItems=10,pattern=^[a-z]+$"
//
// pattern takes the rest of the tag (commas included), so it comes last.
//
// A rules value, compiled once per field, is the single thing that both the
// validator (compile, in validate.go) and the document (schemaRules in
// schema.go) read: neither looks at the tag again.
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

// noRules returns the empty rule set: nothing required, no bounds.
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

// knownFormats are the values of the format rule.
var knownFormats = map[string]bool{"email": true, "uuid": true, "uri": true, "url": true, "date-time": true, "date": true, "ipv4": true, "ipv6": true}

// parseRules parses a validate tag. It fails on an unknown rule, a missing
// or malformed argument, a bad pattern or an unknown format.
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
		if err := r.set(name, arg, hasArg); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// set records the rule name with its argument arg (hasArg: the tag had
// "=").
func (r *rules) set(name, arg string, hasArg bool) error {
	var err error
	switch name {
	case "required":
		r.required = true
	case "min":
		r.min, err = ruleNumber(name, arg, hasArg)
	case "max":
		r.max, err = ruleNumber(name, arg, hasArg)
	case "exclusiveMin":
		r.exclMin, err = ruleNumber(name, arg, hasArg)
	case "exclusiveMax":
		r.exclMax, err = ruleNumber(name, arg, hasArg)
	case "minLength":
		r.minLength, err = ruleCount(name, arg)
	case "maxLength":
		r.maxLength, err = ruleCount(name, arg)
	case "minItems":
		r.minItems, err = ruleCount(name, arg)
	case "maxItems":
		r.maxItems, err = ruleCount(name, arg)
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
	return err
}

// ruleNumber parses the finite number argument of a bound.
func ruleNumber(name, arg string, hasArg bool) (*float64, error) {
	f, err := strconv.ParseFloat(arg, 64)
	if err != nil || !hasArg || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%s needs a number, got %q", name, arg)
	}
	return &f, nil
}

// ruleCount parses the non-negative integer argument of a length or count
// rule.
func ruleCount(name, arg string) (int, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s needs a non-negative integer, got %q", name, arg)
	}
	return n, nil
}

// applicable rejects rules that cannot apply to t, at registration: string
// rules on a non-string, bounds on a non-number, counts on a non-list. The
// scalar rules of a slice or array are its elements', checked on them.
func applicable(t reflect.Type, r *rules) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	k := t.Kind()
	str := k == reflect.String
	num := k >= reflect.Int && k <= reflect.Float64
	list := k == reflect.Slice || k == reflect.Array || k == reflect.Map
	if list && k != reflect.Map && t != bytesType {
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

// hasStringRules reports whether r has a rule that a string is checked
// against (required included).
func (r *rules) hasStringRules() bool {
	return r.required || r.minLength >= 0 || r.maxLength >= 0 || r.pattern != nil || r.enum != nil || r.format != ""
}

// hasNumberRules reports whether r has a rule that a number is checked
// against (required included).
func (r *rules) hasNumberRules() bool {
	return r.required || r.min != nil || r.max != nil || r.exclMin != nil || r.exclMax != nil || r.enum != nil
}

// contains reports whether list has s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// numberFails returns the first rule that x fails (min, max, exclusiveMin,
// exclusiveMax, enum) and its argument, or "". enum is r's enum as numbers
// (numberEnum), nil for none.
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

// numberEnum returns the enum values of a number as numbers; it fails on
// one that is not a number.
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
