package api

import (
	"fmt"
	"net/textproto"
	"reflect"
	"strings"
)

// inputPlan is the compiled binder of one In type (or of a Binder's T, as
// the body alone): where each parameter comes from and how it parses, the
// body, and what binding takes from the Config.
type inputPlan struct {
	typ    reflect.Type
	params []*param // every parameter, in field order: validation order
	path   []*param
	query  []*param // scalar query parameters, at most 64
	qlist  []*param // slice query parameters
	header []*param
	cookie []*param
	body   *bodyPlan
	cfg    *bindConfig
}

// maxScalarQuery bounds the scalar query parameters of one input: bindQuery
// tracks which it has seen in a 64-bit mask.
const maxScalarQuery = 64

// bindConfig is what binding takes from the Config.
type bindConfig struct {
	msgs         messages
	allowUnknown bool
	maxMemory    int64 // multipart bytes kept in memory
	maxFiles     int
}

// param binds one input field from the path, query, header or a cookie.
type param struct {
	in       string // "path", "query", "header", "cookie"
	name     string // as on the wire
	key      string // canonical header key
	loc      string // "query.limit"
	field    reflect.StructField
	offset   uintptr      // the field's offset in the In struct, embedded structs included
	parse    parseFunc    // scalars
	parseAll parseAllFunc // slices
	what     string       // "an integer", for type errors
	def      string
	defs     []string // def as parseAll's values, split once at registration
	hasDef   bool
	required bool
	rules    *rules
	check    check
}

// paramSources are the struct tags that make a field a parameter.
var paramSources = [...]string{"path", "query", "header", "cookie"}

// analyseInput compiles the binder of In for the operation where (for the
// panic message), with the API's binding configuration; it panics on a
// type it cannot bind.
func analyseInput[In any](a *API, where string) *inputPlan {
	t := reflect.TypeFor[In]()
	p, err := buildInput(&a.bind, t)
	if err != nil {
		panic(fmt.Sprintf("api: %s: input %s: %v", where, t, err))
	}
	return p
}

// buildInput compiles the binder of the struct t: its parameters (fields
// with a path, query, header or cookie tag, embedded structs included) and
// its Body field. It fails on a field it cannot bind.
func buildInput(cfg *bindConfig, t reflect.Type) (*inputPlan, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("the input type must be a struct")
	}
	ip := &inputPlan{typ: t, cfg: cfg}
	if err := ip.addFields(t, nil, 0, newValidators(false)); err != nil {
		return nil, err
	}
	if len(ip.query) > maxScalarQuery {
		return nil, fmt.Errorf("more than %d scalar query parameters", maxScalarQuery)
	}
	return ip, nil
}

// addFields adds the parameters and the Body of the struct t, found at
// index (offset bytes in) in the In type.
func (ip *inputPlan) addFields(t reflect.Type, index []int, offset uintptr, v *validators) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		at := append(index[:len(index):len(index)], i)
		switch {
		case f.Anonymous && f.Type.Kind() == reflect.Struct:
			if err := ip.addFields(f.Type, at, offset+f.Offset, v); err != nil {
				return err
			}
		case f.Name == "Body":
			if ip.body != nil {
				return fmt.Errorf("two Body fields")
			}
			bp, err := buildBody(f, at)
			if err != nil {
				return err
			}
			ip.body = bp
		default:
			src, err := paramSource(f)
			if err != nil {
				return err
			}
			if src == "" {
				continue
			}
			pr, err := buildParam(f, offset+f.Offset, src, v)
			if err != nil {
				return err
			}
			ip.add(pr)
		}
	}
	return nil
}

// paramSource returns the source tag of f ("" for none); it fails on a
// field with two, or an unexported one.
func paramSource(f reflect.StructField) (string, error) {
	src := ""
	for _, s := range paramSources {
		if _, ok := f.Tag.Lookup(s); ok {
			if src != "" {
				return "", fmt.Errorf("field %s has both %s and %s tags", f.Name, src, s)
			}
			src = s
		}
	}
	if src != "" && !f.IsExported() {
		return "", fmt.Errorf("field %s is not exported", f.Name)
	}
	return src, nil
}

// add files the parameter pr under its source.
func (ip *inputPlan) add(pr *param) {
	ip.params = append(ip.params, pr)
	switch pr.in {
	case "path":
		ip.path = append(ip.path, pr)
	case "query":
		if pr.parseAll != nil {
			ip.qlist = append(ip.qlist, pr)
		} else {
			ip.query = append(ip.query, pr)
		}
	case "header":
		ip.header = append(ip.header, pr)
	case "cookie":
		ip.cookie = append(ip.cookie, pr)
	}
}

// buildParam compiles the parameter field f (at offset in the In struct)
// from src: its wire name and location, its parser, its rules and check,
// its default (parsed and checked here), and whether it is required.
func buildParam(f reflect.StructField, offset uintptr, src string, v *validators) (*param, error) {
	name := f.Tag.Get(src)
	if name == "" {
		name = f.Name
	}
	pr := &param{in: src, name: name, loc: src + "." + name, field: f, offset: offset}
	if src == "header" {
		pr.key = textproto.CanonicalMIMEHeaderKey(name)
		pr.loc = "header." + pr.key
	}
	t := f.Type
	list := t.Kind() == reflect.Slice && src != "path" && src != "cookie" && t.Elem().Kind() != reflect.Uint8
	var err error
	if pr.parse, pr.parseAll, pr.what, err = valueParser(t, list); err != nil {
		return nil, fmt.Errorf("field %s: %s parameters cannot be of type %s", f.Name, src, t)
	}
	if tag, ok := f.Tag.Lookup("validate"); ok {
		if pr.rules, err = parseRules(tag); err != nil {
			return nil, fmt.Errorf("field %s: %v", f.Name, err)
		}
	}
	if pr.check, err = v.compile(t, pr.rules, asField); err != nil {
		return nil, fmt.Errorf("field %s: %v", f.Name, err)
	}
	if d, ok := f.Tag.Lookup("default"); ok {
		pr.def, pr.defs, pr.hasDef = d, splitList(d), true
		if err := checkDefault(t, d, pr.parse, pr.parseAll, pr.check); err != nil {
			return nil, fmt.Errorf("field %s: default %q: %v", f.Name, d, err)
		}
	}
	// Required, as the binder reports it and the document says it: path
	// wildcards, the required rule, and, without a default, a parameter
	// whose zero value (what its absence leaves) fails its rules.
	pr.required = src == "path" || pr.rules != nil && pr.rules.required || !pr.hasDef && zeroFails(t, pr.check)
	return pr, nil
}

// valueParser returns the parser of a value of type t: parseAll for a list
// (a slice of scalars), parse for a scalar; it fails on any other type.
func valueParser(t reflect.Type, list bool) (parseFunc, parseAllFunc, string, error) {
	if list {
		ep, what := scalarParser(t.Elem())
		if ep == nil {
			return nil, nil, "", errBadValue
		}
		return nil, sliceParser(t, ep), what, nil
	}
	p, what := scalarParser(t)
	if p == nil {
		return nil, nil, "", errBadValue
	}
	return p, nil, what, nil
}

// checkDefault parses a default tag once, at registration, and checks it
// against the field's rules: a default that the rules refuse would be a
// 422 that the client cannot avoid.
func checkDefault(t reflect.Type, d string, parse parseFunc, parseAll parseAllFunc, c check) error {
	scratch := reflect.New(t).UnsafePointer()
	var err error
	if parseAll != nil {
		_, err = parseAll(scratch, splitList(d))
	} else {
		err = parse(scratch, d)
	}
	if err == nil && c != nil && !c(scratch, nil) {
		return fmt.Errorf("the field's own rules refuse it")
	}
	return err
}

// splitList splits a comma-separated list and trims its items.
func splitList(s string) []string {
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// checkPath panics unless every wildcard of the route (full, for the
// operation where) has a path field and every path field a wildcard.
func (ip *inputPlan) checkPath(where, full string) {
	wild := map[string]bool{}
	for _, seg := range strings.Split(full, "/") {
		if strings.HasPrefix(seg, "{") && seg != "{$}" {
			wild[strings.TrimSuffix(strings.Trim(seg, "{}"), "...")] = true
		}
	}
	for _, p := range ip.path {
		if !wild[p.name] {
			panic(fmt.Sprintf("api: %s: field %s binds path wildcard {%s}, which the path does not have", where, p.field.Name, p.name))
		}
		delete(wild, p.name)
	}
	for w := range wild {
		panic(fmt.Sprintf("api: %s: input %s has no `path:\"%s\"` field for the wildcard {%s}", where, ip.typ, w, w))
	}
}
