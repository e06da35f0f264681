package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/plinth-go/plinth"
)

// param binds one input field from the path, query, header or a cookie.
type param struct {
	in       string // "path", "query", "header", "cookie"
	name     string // as on the wire
	key      string // canonical header key
	loc      string // "query.limit"
	field    reflect.StructField
	offset   uintptr
	parse    parseFunc                                          // scalars
	parseAll func(p unsafe.Pointer, vals []string) (int, error) // slices
	what     string                                             // "an integer", for type errors
	def      string
	defs     []string // def as parseAll's values, split once at registration
	hasDef   bool
	required bool
	rules    *rules
	check    check
}

// inputPlan is the compiled binder of one In type.
type inputPlan struct {
	typ    reflect.Type
	params []*param
	path   []*param
	query  []*param // scalar query parameters, at most 64
	qlist  []*param // slice query parameters
	header []*param
	cookie []*param
	body   *bodyPlan
	cfg    *bindConfig
}

// bindConfig is what binding takes from the Config.
type bindConfig struct {
	msgs         messages
	allowUnknown bool
	maxMemory    int64 // multipart bytes kept in memory
	maxFiles     int
}

// bodyPlan binds the Body field.
type bodyPlan struct {
	field    reflect.StructField
	offset   uintptr
	typ      reflect.Type
	optional bool // a pointer: an empty body leaves it nil
	form     bool // form or multipart fields, else JSON
	check    check
	hook     bool // the body type implements Validator
	fields   []*formField
	schemaOf reflect.Type // the body type without the pointer
	rules    *rules       // the Body field's own validate tag, nil for none
	v        *validators  // the compiled body types, read by the JSON walker
}

// formField binds one field of a form body.
type formField struct {
	name     string
	offset   uintptr
	typ      reflect.Type
	parse    parseFunc
	parseAll func(p unsafe.Pointer, vals []string) (int, error)
	what     string
	file     int // 1: *multipart.FileHeader, 2: []*multipart.FileHeader
	def      string
	defs     []string // def as the values to parse, made once at registration
	hasDef   bool
	doc      reflect.StructField
}

var validatorType = reflect.TypeFor[Validator]()

func analyseInput[In any](a *API, where string) *inputPlan {
	t := reflect.TypeFor[In]()
	p, err := buildInput(&a.bind, t)
	if err != nil {
		panic(fmt.Sprintf("api: %s: input %s: %v", where, t, err))
	}
	return p
}

func buildInput(cfg *bindConfig, t reflect.Type) (*inputPlan, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("the input type must be a struct")
	}
	ip := &inputPlan{typ: t, cfg: cfg}
	jsonV := newValidators(false)
	var walk func(t reflect.Type, base uintptr) error
	walk = func(t reflect.Type, base uintptr) error {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				if err := walk(f.Type, base+f.Offset); err != nil {
					return err
				}
				continue
			}
			if f.Name == "Body" {
				if ip.body != nil {
					return fmt.Errorf("two Body fields")
				}
				bp, err := buildBody(f, base)
				if err != nil {
					return err
				}
				ip.body = bp
				continue
			}
			src := ""
			for _, s := range [...]string{"path", "query", "header", "cookie"} {
				if _, ok := f.Tag.Lookup(s); ok {
					if src != "" {
						return fmt.Errorf("field %s has both %s and %s tags", f.Name, src, s)
					}
					src = s
				}
			}
			if src == "" {
				continue
			}
			if !f.IsExported() {
				return fmt.Errorf("field %s is not exported", f.Name)
			}
			pr, err := buildParam(f, base, src, jsonV)
			if err != nil {
				return err
			}
			ip.params = append(ip.params, pr)
			switch src {
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
		return nil
	}
	if err := walk(t, 0); err != nil {
		return nil, err
	}
	if len(ip.query) > 64 {
		return nil, fmt.Errorf("more than 64 scalar query parameters")
	}
	return ip, nil
}

func buildParam(f reflect.StructField, base uintptr, src string, v *validators) (*param, error) {
	name := f.Tag.Get(src)
	if name == "" {
		name = f.Name
	}
	pr := &param{in: src, name: name, loc: src + "." + name, field: f, offset: base + f.Offset}
	if src == "header" {
		pr.key = textproto.CanonicalMIMEHeaderKey(name)
		pr.loc = "header." + pr.key
	}
	t := f.Type
	if t.Kind() == reflect.Slice && src != "path" && src != "cookie" && t.Elem().Kind() != reflect.Uint8 {
		ep, what := scalarParser(t.Elem())
		if ep == nil {
			return nil, fmt.Errorf("field %s: %s parameters cannot be of type %s", f.Name, src, t)
		}
		pr.parseAll, pr.what = sliceParser(t, ep), what
	} else {
		pr.parse, pr.what = scalarParser(t)
		if pr.parse == nil {
			return nil, fmt.Errorf("field %s: %s parameters cannot be of type %s", f.Name, src, t)
		}
	}
	if tag, ok := f.Tag.Lookup("validate"); ok {
		r, err := parseRules(tag)
		if err != nil {
			return nil, fmt.Errorf("field %s: %v", f.Name, err)
		}
		pr.rules = r
		pr.required = r.required
	}
	c, err := v.compile(t, pr.rules, asField)
	if err != nil {
		return nil, fmt.Errorf("field %s: %v", f.Name, err)
	}
	pr.check = c
	if d, ok := f.Tag.Lookup("default"); ok {
		pr.def, pr.defs, pr.hasDef = d, splitList(d), true
		if err := checkDefault(t, d, pr.parse, pr.parseAll, c); err != nil {
			return nil, fmt.Errorf("field %s: default %q: %v", f.Name, d, err)
		}
	}
	// Required, as the binder reports it and the document says it: path
	// wildcards, the required rule, and, without a default, a parameter
	// whose zero value (what its absence leaves) fails its rules.
	pr.required = src == "path" || pr.required || !pr.hasDef && zeroFails(t, c)
	return pr, nil
}

// checkDefault parses a default tag once, at registration, and checks it
// against the field's rules: a default that the rules refuse would be a
// 422 that the client cannot avoid.
func checkDefault(t reflect.Type, d string, parse parseFunc, parseAll func(unsafe.Pointer, []string) (int, error), c check) error {
	scratch := reflect.New(t)
	var err error
	if parseAll != nil {
		_, err = parseAll(scratch.UnsafePointer(), splitList(d))
	} else {
		err = parse(scratch.UnsafePointer(), d)
	}
	if err == nil && c != nil && !c(scratch.UnsafePointer(), nil) {
		return fmt.Errorf("the field's own rules refuse it")
	}
	return err
}

func splitList(s string) []string {
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func buildBody(f reflect.StructField, base uintptr) (*bodyPlan, error) {
	bp := &bodyPlan{field: f, offset: base + f.Offset, typ: f.Type, schemaOf: f.Type}
	if f.Type.Kind() == reflect.Pointer {
		bp.optional = true
		bp.schemaOf = f.Type.Elem()
	}
	st := bp.schemaOf
	bp.hook = reflect.PointerTo(st).Implements(validatorType)
	if st.Kind() == reflect.Struct && st != timeType && hasFormTags(st) {
		if bp.optional {
			return nil, fmt.Errorf("a form Body must not be a pointer")
		}
		bp.form = true
		for i := 0; i < st.NumField(); i++ {
			sf := st.Field(i)
			name, ok := sf.Tag.Lookup("form")
			if !ok || name == "-" || !sf.IsExported() {
				continue
			}
			ff := &formField{name: name, offset: sf.Offset, typ: sf.Type, doc: sf}
			switch {
			case sf.Type == fileHeaderPtrType:
				ff.file = 1
			case sf.Type.Kind() == reflect.Slice && sf.Type.Elem() == fileHeaderPtrType:
				ff.file = 2
			case sf.Type.Kind() == reflect.Slice && sf.Type.Elem().Kind() != reflect.Uint8:
				ep, what := scalarParser(sf.Type.Elem())
				if ep == nil {
					return nil, fmt.Errorf("form field %s cannot be of type %s", sf.Name, sf.Type)
				}
				ff.parseAll, ff.what = sliceParser(sf.Type, ep), what
			default:
				ff.parse, ff.what = scalarParser(sf.Type)
				if ff.parse == nil {
					return nil, fmt.Errorf("form field %s cannot be of type %s", sf.Name, sf.Type)
				}
			}
			if d, ok := sf.Tag.Lookup("default"); ok && ff.file == 0 {
				ff.def, ff.defs, ff.hasDef = d, []string{d}, true
				if ff.parseAll != nil {
					ff.defs = splitList(d)
				}
				if err := checkDefault(sf.Type, d, ff.parse, ff.parseAll, nil); err != nil {
					return nil, fmt.Errorf("form field %s: default %q: %v", sf.Name, d, err)
				}
			}
			bp.fields = append(bp.fields, ff)
		}
	}
	v := newValidators(bp.form)
	if tag, ok := f.Tag.Lookup("validate"); ok {
		var err error
		if bp.rules, err = parseRules(tag); err != nil {
			return nil, fmt.Errorf("field Body: %v", err)
		}
	}
	c, err := v.compile(bp.schemaOf, bp.rules, asValue)
	if err != nil {
		return nil, err
	}
	bp.check, bp.v = c, v
	return bp, nil
}

func hasFormTags(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if _, ok := t.Field(i).Tag.Lookup("form"); ok {
			return true
		}
	}
	return false
}

// checkPath verifies that every wildcard of the route has a path field and
// every path field a wildcard.
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

// bufPool holds body buffers; large ones are dropped.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBody = 64 << 10

// jsonBody is a JSON request body, read into a pooled buffer that is kept
// until the request's validation is done: the error path reads it again.
type jsonBody struct {
	buf  *bytes.Buffer
	data []byte
	// needPresence: the body has a "" literal and the body type an
	// optional string field that refuses "": the fast pass cannot tell a
	// sent "" from an absent member, so the collecting pass decides.
	needPresence bool
	walked       *walker // the walk of the error path, nil if none ran
	aborted      bool    // the decoded value is incomplete: not validated
}

func (jb *jsonBody) release() {
	if jb.buf != nil && jb.buf.Cap() <= maxPooledBody {
		jb.buf.Reset()
		bufPool.Put(jb.buf)
	}
	jb.buf, jb.data = nil, nil
}

var emptyString = []byte(`""`)

// bind fills the In value at base from the request and validates it,
// returning nil or the error to send: a 400, 413, 415 or 422 problem, or a
// *plinth.BodyError for a body that could not be read (413, 408, 400).
// On an error, a multipart form it parsed is removed at once.
func (ip *inputPlan) bind(c *plinth.Ctx, base unsafe.Pointer) (err error) {
	cfg := ip.cfg
	r := c.Request()
	var errs []*FieldError
	var skip []string // locations that failed to decode: not validated
	bad := func(loc, code, param string, value any) {
		if s, ok := value.(string); ok {
			value = truncate(s)
		}
		errs = append(errs, &FieldError{Location: loc, Message: cfg.msgs.text(r, code, param), Value: value})
		skip = append(skip, loc)
	}
	set := func(p *param, s string) {
		if err := p.parse(unsafe.Add(base, p.offset), s); err != nil {
			bad(p.loc, "type", p.what, s)
		}
	}
	setAll := func(p *param, vals []string) {
		if i, err := p.parseAll(unsafe.Add(base, p.offset), vals); err != nil {
			bad(p.loc, "type", p.what, vals[i])
		}
	}
	missing := func(p *param) {
		switch {
		case p.hasDef && p.parseAll != nil:
			setAll(p, p.defs)
		case p.hasDef:
			set(p, p.def)
		case p.required:
			bad(p.loc, "required", "", nil)
		}
	}

	for _, p := range ip.path {
		set(p, c.Param(p.name))
	}
	if len(ip.query) > 0 {
		var found uint64
		q := r.URL.RawQuery
		for q != "" {
			var kv string
			kv, q, _ = strings.Cut(q, "&")
			k, val, _ := strings.Cut(kv, "=")
			if k == "" || strings.IndexByte(kv, ';') >= 0 {
				continue
			}
			k, ok := unescapeQuery(k)
			if !ok {
				continue
			}
			for j, p := range ip.query {
				if p.name != k || found&(1<<j) != 0 {
					continue
				}
				found |= 1 << j
				if val, ok = unescapeQuery(val); !ok {
					bad(p.loc, "type", p.what, val)
				} else if val != "" {
					set(p, val)
				} else {
					found &^= 1 << j // empty: as if absent
				}
				break
			}
		}
		for j, p := range ip.query {
			if found&(1<<j) == 0 {
				missing(p)
			}
		}
	}
	if len(ip.qlist) > 0 {
		vals := r.URL.Query()
		for _, p := range ip.qlist {
			if vs := vals[p.name]; !allEmpty(vs) {
				setAll(p, vs) // empty values among others are values
			} else {
				missing(p)
			}
		}
	}
	for _, p := range ip.header {
		hv := r.Header[p.key]
		switch {
		case len(hv) == 0 || hv[0] == "" && len(hv) == 1:
			missing(p)
		case p.parseAll != nil:
			var vs []string
			for _, h := range hv {
				vs = append(vs, nonEmpty(splitList(h))...)
			}
			setAll(p, vs)
		default:
			set(p, strings.TrimSpace(hv[0]))
		}
	}
	for _, p := range ip.cookie {
		ck, err := r.Cookie(p.name)
		if err != nil || ck.Value == "" {
			missing(p)
		} else {
			set(p, ck.Value)
		}
	}

	var bodyPtr unsafe.Pointer // the decoded body value, nil if none
	var jb jsonBody
	defer jb.release()
	if bp := ip.body; bp != nil {
		if bp.form {
			defer func() {
				if err != nil {
					removeForm(r) // no temporary file outlives a refused request
				}
			}()
		}
		field := unsafe.Add(base, bp.offset)
		present, err := ip.readBody(r, bp, field, &jb, bad)
		if err != nil {
			return err
		}
		switch {
		case !present && !bp.optional:
			bad("body", "required", "", nil)
		case jb.aborted:
		case present && bp.optional:
			bodyPtr = *(*unsafe.Pointer)(field)
		case present:
			bodyPtr = field
		}
	}

	// Validation: a fast pass that stops at the first failure and
	// allocates nothing; only when something failed (or a sent "" must be
	// told from an absent member), a second pass that collects every
	// failure with its location.
	ok := errs == nil && !jb.needPresence
	for _, p := range ip.params {
		if ok && p.check != nil && !p.check(unsafe.Add(base, p.offset), nil) {
			ok = false
		}
	}
	if ok && bodyPtr != nil && ip.body.check != nil && !ip.body.check(bodyPtr, nil) {
		ok = false
	}
	if !ok {
		col := &collector{msgs: cfg.msgs, r: r, skip: skip}
		for _, p := range ip.params {
			if p.check != nil {
				col.path = append(col.path[:0], p.loc...)
				p.check(unsafe.Add(base, p.offset), col)
			}
		}
		if bodyPtr != nil && ip.body.check != nil {
			if jb.data != nil {
				// Which members the body has: an absent required one is
				// "is required", a sent "" is a value.
				if jb.walked == nil {
					jb.walked = walkJSON(jb.data, ip.body.typ, ip.body.v, true, "body")
				}
				col.present = jb.walked.present
			}
			col.path = append(col.path[:0], "body"...)
			ip.body.check(bodyPtr, col)
		}
		errs = append(errs, col.errs...)
		if len(errs) > 0 {
			return validationProblem(errs)
		}
	}
	if bodyPtr != nil && ip.body.hook {
		if err := runHook(c, reflect.NewAt(ip.body.schemaOf, bodyPtr).Interface().(Validator)); err != nil {
			return err
		}
	}
	return nil
}

// allEmpty reports whether vs has no value but "".
func allEmpty(vs []string) bool {
	for _, v := range vs {
		if v != "" {
			return false
		}
	}
	return true
}

func nonEmpty(vs []string) []string {
	n := 0
	for _, v := range vs {
		if v != "" {
			n++
		}
	}
	if n == len(vs) {
		return vs
	}
	out := make([]string, 0, n)
	for _, v := range vs {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

func unescapeQuery(s string) (string, bool) {
	if !strings.ContainsAny(s, "%+") {
		return s, true
	}
	u, err := url.QueryUnescape(s)
	return u, err == nil
}

// readBody decodes the body into field. It reports whether a body was
// present, and returns an error to send at once (400, 413, 415, or the
// body read error); values of the wrong type and unknown members are
// reported through bad.
func (ip *inputPlan) readBody(r *http.Request, bp *bodyPlan, field unsafe.Pointer, jb *jsonBody,
	bad func(loc, code, param string, value any)) (bool, error) {
	ct := r.Header.Get("Content-Type")
	media, _, _ := strings.Cut(ct, ";")
	media = strings.ToLower(strings.TrimSpace(media))
	if bp.form {
		return ip.readForm(r, bp, field, media, bad)
	}
	if media != "" && media != "application/json" && !strings.HasSuffix(media, "+json") {
		if r.ContentLength == 0 {
			return false, nil
		}
		return false, plinth.Error(http.StatusUnsupportedMediaType, "the request body must be application/json, not "+media)
	}
	if r.Body == nil || r.Body == http.NoBody {
		return false, nil
	}
	jb.buf = bufPool.Get().(*bytes.Buffer)
	jb.buf.Reset()
	if _, err := jb.buf.ReadFrom(r.Body); err != nil {
		return false, bodyReadError(err)
	}
	data := jb.buf.Bytes()
	if len(bytes.TrimSpace(data)) == 0 {
		return false, nil
	}
	jb.data = data
	allowUnknown := ip.cfg.allowUnknown
	target := reflect.NewAt(bp.typ, field).Interface()
	err := decodeJSON(data, target, allowUnknown)
	if err == nil {
		jb.needPresence = bp.v.ambiguous && bytes.Contains(data, emptyString)
		return true, nil
	}
	if syntaxError(err) {
		return false, plinth.BadRequest("the request body is not valid JSON: " + jsonErrorText(err)).Wrap(err)
	}
	// A value of the wrong type, an unknown member or a failing
	// UnmarshalJSON: encoding/json tells the first only, the walker all.
	w := walkJSON(data, bp.typ, bp.v, allowUnknown, "body")
	if !blank(data[w.end:]) {
		return false, plinth.BadRequest("the request body is not valid JSON: " + errTrailing.Error()).Wrap(errTrailing)
	}
	if len(w.errs) == 0 {
		// encoding/json refused what the walker accepts: its words
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			loc := "body"
			if te.Field != "" {
				loc += "." + te.Field
			}
			bad(loc, "type", typeWords(te.Type), nil)
			jb.aborted = true
			return true, nil
		}
		return false, plinth.BadRequest("the request body is not valid JSON: " + jsonErrorText(err)).Wrap(err)
	}
	for _, e := range w.errs {
		bad(e.loc, e.code, e.what, e.value)
	}
	// Decode again, with the bad values as null and unknown members let
	// through, so that everything else is validated too.
	reflect.NewAt(bp.typ, field).Elem().SetZero()
	if decodeJSON(w.patched(), target, true) != nil {
		jb.aborted = true
	}
	jb.walked = w
	return true, nil
}

// syntaxError reports whether err from decodeJSON means malformed JSON (a
// 400) rather than a value that does not fit the Go type.
func syntaxError(err error) bool {
	if _, ok := errors.AsType[*json.SyntaxError](err); ok {
		return true
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || err == errTrailing
}

// bodyReadError returns a failure to read the body as a *plinth.BodyError,
// which the App's renderer answers by its cause: 413 over the limit, 408
// too slow, 400 for the rest.
func bodyReadError(err error) error {
	if _, ok := errors.AsType[*plinth.BodyError](err); ok {
		return err
	}
	return &plinth.BodyError{Err: err}
}

var errTrailing = errors.New("unexpected data after the JSON value")

// pooledDecoder is a json.Decoder over a resettable reader. encoding/json's
// Decoder keeps its decode state, scanner stack and buffer between values,
// which json.Unmarshal allocates anew each call; a decoder goes back to its
// pool only after a clean decode that consumed its input exactly, so that
// nothing of one body is left for the next.
type pooledDecoder struct {
	r        bytes.Reader
	dec      *json.Decoder
	leftover int64 // blanks of the previous body that the decoder buffered but did not consume
}

var decoderPools [2]sync.Pool // [0]: unknown fields rejected, [1]: allowed

func decodeJSON(data []byte, target any, allowUnknown bool) error {
	pool := &decoderPools[0]
	if allowUnknown {
		pool = &decoderPools[1]
	}
	pd, _ := pool.Get().(*pooledDecoder)
	if pd == nil {
		pd = &pooledDecoder{}
		pd.dec = json.NewDecoder(&pd.r)
		if !allowUnknown {
			pd.dec.DisallowUnknownFields()
		}
	}
	pd.r.Reset(data)
	start := pd.dec.InputOffset() + pd.leftover // where data begins in the decoder's stream
	err := pd.dec.Decode(target)
	if err != nil {
		return err // the decoder may hold a sticky error: drop it
	}
	end := pd.dec.InputOffset() - start // the end of the value in data
	if end < 0 || end > int64(len(data)) || !blank(data[end:]) {
		return errTrailing
	}
	if len(data) <= maxPooledBody {
		pd.leftover = int64(len(data)-pd.r.Len()) - end
		pd.r.Reset(nil)
		pool.Put(pd)
	}
	return nil
}

// blank reports whether b holds JSON whitespace only.
func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

func jsonErrorText(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error() + " (at byte " + strconv.FormatInt(se.Offset, 10) + ")"
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func (ip *inputPlan) readForm(r *http.Request, bp *bodyPlan, field unsafe.Pointer, media string,
	bad func(loc, code, param string, value any)) (bool, error) {
	var vals url.Values
	var files map[string][]*multipart.FileHeader
	switch media {
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return false, formError(err, "the form body is malformed")
		}
		vals = r.PostForm
	case "multipart/form-data":
		if err := r.ParseMultipartForm(ip.cfg.maxMemory); err != nil {
			// ReadForm removes the files it wrote when it fails.
			return false, formError(err, "the multipart body is malformed")
		}
		vals, files = r.MultipartForm.Value, r.MultipartForm.File
		n := 0
		for _, fs := range files {
			n += len(fs)
		}
		if n > ip.cfg.maxFiles {
			return false, plinth.Errorf(http.StatusRequestEntityTooLarge, "at most %d files are accepted", ip.cfg.maxFiles)
		}
	case "":
		if r.ContentLength == 0 {
			return false, nil
		}
		fallthrough
	default:
		return false, plinth.Error(http.StatusUnsupportedMediaType, "the request body must be application/x-www-form-urlencoded or multipart/form-data")
	}
	for _, ff := range bp.fields {
		p := unsafe.Add(field, ff.offset)
		loc := "body." + ff.name
		switch ff.file {
		case 1:
			if fs := files[ff.name]; len(fs) > 0 {
				*(**multipart.FileHeader)(p) = fs[0]
			}
			continue
		case 2:
			*(*[]*multipart.FileHeader)(p) = files[ff.name]
			continue
		}
		vs := nonEmpty(vals[ff.name])
		if len(vs) == 0 {
			if !ff.hasDef {
				continue
			}
			vs = ff.defs
		}
		if ff.parseAll != nil {
			if i, err := ff.parseAll(p, vs); err != nil {
				bad(loc, "type", ff.what, vs[i])
			}
		} else if err := ff.parse(p, vs[0]); err != nil {
			bad(loc, "type", ff.what, vs[0])
		}
	}
	return true, nil
}

// removeForm removes the temporary files of r's multipart form, if any.
func removeForm(r *http.Request) {
	if r.MultipartForm != nil {
		_ = r.MultipartForm.RemoveAll()
	}
}

// formError maps a form parsing error: a body read failure goes to the
// renderer as a *plinth.BodyError (413 over the limit, 408 too slow, 400),
// too many parts is 413, the rest a 400 with detail.
func formError(err error, detail string) error {
	if _, ok := errors.AsType[*plinth.BodyError](err); ok {
		return err
	}
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok || errors.Is(err, os.ErrDeadlineExceeded) {
		return &plinth.BodyError{Err: err}
	}
	if errors.Is(err, multipart.ErrMessageTooLarge) {
		return plinth.Error(http.StatusRequestEntityTooLarge, "the multipart body has too many parts or is too large").Wrap(err)
	}
	return plinth.BadRequest(detail).Wrap(err)
}
