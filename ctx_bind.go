package plinth

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/plinth-go/plinth/internal/bodybind"
)

// Bind reads the request body into v, a pointer, by the request's
// Content-Type, and returns nil or the error for the handler to return,
// which the error renderer answers with a problem:
//
//   - application/json, application/*+json or none: the body decoded with
//     encoding/json (members v has no field for are ignored, as
//     json.Unmarshal does); malformed JSON or data after the value is a 400
//     whose detail gives the byte offset, a value of the wrong type a 400
//     naming the member, an empty body a 400;
//   - application/x-www-form-urlencoded and multipart/form-data (v points
//     to a struct): each exported field takes the form value named by its
//     `form` tag (else its `json` tag's name, else the field's name; "-"
//     skips it): string, bool, integer and float kinds, encoding.TextUnmarshaler
//     types (time.Time as RFC 3339), pointers to those (set when present),
//     slices of those (every value), and *multipart.FileHeader or
//     []*multipart.FileHeader for files. A value that does not parse is a
//     400 naming the field. A multipart body keeps 8 MiB in memory and may
//     carry 16 files (more is a 413); its files are removed when the
//     request ends. The query string is not read;
//   - any other media type is a 415;
//   - a body over the route's limit is a 413, one sent too slowly a 408
//     (a *BodyError, as any read of the body).
//
// The 400, 413 and 415 problems are those of the api package's binders
// (one implementation). Bind does not validate: api.Bind adds validate
// tags and 422 field errors. v not a pointer, or a form field of a type
// Bind cannot set, is a 500 (the program's mistake).
func (c *Ctx) Bind(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("plinth: Bind needs a non-nil pointer, got %T", v)
	}
	r := c.req
	media := bodybind.MediaType(r.Header.Get("Content-Type"))
	switch {
	case bodybind.IsJSON(media):
		return c.bindJSON(r, v)
	case bodybind.IsForm(media):
		return c.bindForm(r, media, rv.Elem())
	}
	return bindFailure(bodybind.NotJSONOrForm(media))
}

// bindJSON reads the body into the Ctx's buffer and decodes it into v.
func (c *Ctx) bindJSON(r *http.Request, v any) error {
	if r.Body == nil || r.Body == http.NoBody {
		return BadRequest("the request body is empty")
	}
	c.buf.Reset()
	if _, err := c.buf.ReadFrom(r.Body); err != nil {
		if _, ok := errors.AsType[*BodyError](err); ok {
			return err
		}
		return &BodyError{Err: err}
	}
	data := c.buf.Bytes()
	if bodybind.Blank(data) {
		return BadRequest("the request body is empty")
	}
	err := bodybind.DecodeJSON(data, v, true)
	switch {
	case err == nil:
		return nil
	case bodybind.IsSyntax(err):
		return bindFailure(bodybind.MalformedJSON(err))
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
		return BadRequest("the request body member " + strconv.Quote(te.Field) + " must be " +
			jsonWords(te.Type) + ", not a JSON " + te.Value).Wrap(err)
	}
	return BadRequest("the request body does not fit: " + bodybind.JSONErrorText(err)).Wrap(err)
}

// bindForm parses the form body and sets the fields of the struct dst.
func (c *Ctx) bindForm(r *http.Request, media string, dst reflect.Value) error {
	if dst.Kind() != reflect.Struct {
		return fmt.Errorf("plinth: Bind reads a form into a pointer to a struct, not %s", dst.Type())
	}
	fields, err := formFieldsOf(dst.Type())
	if err != nil {
		return fmt.Errorf("plinth: Bind: %w", err)
	}
	var vals url.Values
	var files map[string][]*multipart.FileHeader
	if media == "multipart/form-data" {
		if err := r.ParseMultipartForm(bodybind.DefaultMultipartMemory); err != nil {
			return formBindError(err, "the multipart body is malformed")
		}
		c.handOut(r)
		n := 0
		for _, fs := range r.MultipartForm.File {
			n += len(fs)
		}
		if n > bodybind.DefaultMaxFiles {
			return bindFailure(bodybind.TooManyFiles(bodybind.DefaultMaxFiles))
		}
		vals, files = r.MultipartForm.Value, r.MultipartForm.File
	} else {
		if err := r.ParseForm(); err != nil {
			return formBindError(err, "the form body is malformed")
		}
		vals = r.PostForm
	}
	for _, f := range fields {
		if err := f.set(dst.Field(f.index), vals, files); err != nil {
			return err
		}
	}
	return nil
}

// bindFailure returns the problem of a shared binding failure.
func bindFailure(f bodybind.Failure) error {
	if f.Status == 0 {
		return &BodyError{Err: f.Err}
	}
	p := Error(f.Status, f.Detail)
	if f.Err != nil {
		p = p.Wrap(f.Err)
	}
	return p
}

// formBindError maps a form parsing error, as the api package's binders do.
func formBindError(err error, detail string) error {
	if _, ok := errors.AsType[*BodyError](err); ok {
		return err
	}
	return bindFailure(bodybind.FormFailure(err, detail))
}

// bindField is one field of a form struct that Bind sets.
type bindField struct {
	name  string
	index int
	typ   reflect.Type
	file  int // 1: *multipart.FileHeader, 2: []*multipart.FileHeader
}

// formFields caches the bindFields of each form struct type.
var formFields sync.Map // reflect.Type -> []bindField, or error

var (
	fileHeaderType      = reflect.TypeFor[*multipart.FileHeader]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// formFieldsOf returns the fields Bind sets in the struct type t, or an
// error naming a field of a type it cannot set.
func formFieldsOf(t reflect.Type) ([]bindField, error) {
	if got, ok := formFields.Load(t); ok {
		if err, bad := got.(error); bad {
			return nil, err
		}
		return got.([]bindField), nil
	}
	var fields []bindField
	var err error
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, ok := sf.Tag.Lookup("form")
		if !ok {
			name, _, _ = strings.Cut(sf.Tag.Get("json"), ",")
		}
		switch {
		case name == "-":
			continue
		case name == "":
			name = sf.Name
		}
		f := bindField{name: name, index: i, typ: sf.Type}
		switch {
		case sf.Type == fileHeaderType:
			f.file = 1
		case sf.Type.Kind() == reflect.Slice && sf.Type.Elem() == fileHeaderType:
			f.file = 2
		case !settable(sf.Type, true):
			err = errors.New("form field " + sf.Name + " cannot be of type " + sf.Type.String())
		}
		fields = append(fields, f)
	}
	if err != nil {
		formFields.Store(t, err)
		return nil, err
	}
	formFields.Store(t, fields)
	return fields, nil
}

// settable reports whether setValue can set a value of type t (a slice of
// such values if list).
func settable(t reflect.Type, list bool) bool {
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return true
	}
	switch k := t.Kind(); {
	case k == reflect.String, k == reflect.Bool, k >= reflect.Int && k <= reflect.Float64:
		return true
	case k == reflect.Pointer:
		return settable(t.Elem(), false)
	case k == reflect.Slice && list:
		return settable(t.Elem(), false)
	}
	return false
}

// set sets the field v from the form: its files, or its non-empty values
// (all of them for a slice, else the first); absent, v keeps its value.
func (f *bindField) set(v reflect.Value, vals url.Values, files map[string][]*multipart.FileHeader) error {
	switch f.file {
	case 1:
		if fs := files[f.name]; len(fs) > 0 {
			v.Set(reflect.ValueOf(fs[0]))
		}
		return nil
	case 2:
		if fs := files[f.name]; len(fs) > 0 {
			v.Set(reflect.ValueOf(fs))
		}
		return nil
	}
	var vs []string
	for _, s := range vals[f.name] {
		if s != "" {
			vs = append(vs, s)
		}
	}
	if len(vs) == 0 {
		return nil
	}
	if f.typ.Kind() == reflect.Slice && !reflect.PointerTo(f.typ).Implements(textUnmarshalerType) {
		s := reflect.MakeSlice(f.typ, len(vs), len(vs))
		for i, x := range vs {
			if err := setValue(s.Index(i), x); err != nil {
				return f.bad(x, err)
			}
		}
		v.Set(s)
		return nil
	}
	if err := setValue(v, vs[0]); err != nil {
		return f.bad(vs[0], err)
	}
	return nil
}

// bad is the 400 of a form value that does not parse.
func (f *bindField) bad(value string, err error) error {
	if len(value) > 64 {
		value = value[:64] + "..."
	}
	return BadRequest("the form field " + strconv.Quote(f.name) + " must be " + typeWords(f.typ) +
		", not " + strconv.Quote(value)).Wrap(err)
}

// jsonWords names what a JSON value decoded into type t must be.
func jsonWords(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		if !reflect.PointerTo(t).Implements(textUnmarshalerType) {
			return "an object"
		}
	}
	return typeWords(t)
}

// typeWords names what a form field of type t expects.
func typeWords(t reflect.Type) string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	switch k := t.Kind(); {
	case t.String() == "time.Time":
		return "a date-time (RFC 3339)"
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
		return "a valid value"
	case k == reflect.Bool:
		return "a boolean"
	case k >= reflect.Int && k <= reflect.Int64:
		return "an integer"
	case k >= reflect.Uint && k <= reflect.Uintptr:
		return "a non-negative integer"
	case k == reflect.Float32 || k == reflect.Float64:
		return "a number"
	}
	return "a string"
}

// setValue parses s into v, of a type settable accepts (not a slice).
func setValue(v reflect.Value, s string) error {
	if v.CanAddr() {
		if u, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
			return u.UnmarshalText([]byte(s))
		}
	}
	switch k := v.Kind(); {
	case k == reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := setValue(p.Elem(), s); err != nil {
			return err
		}
		v.Set(p)
	case k == reflect.String:
		v.SetString(s)
	case k == reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		v.SetBool(b)
	case k >= reflect.Int && k <= reflect.Int64:
		n, err := strconv.ParseInt(s, 10, v.Type().Bits())
		if err != nil {
			return err
		}
		v.SetInt(n)
	case k >= reflect.Uint && k <= reflect.Uintptr:
		n, err := strconv.ParseUint(s, 10, v.Type().Bits())
		if err != nil {
			return err
		}
		v.SetUint(n)
	case k == reflect.Float32 || k == reflect.Float64:
		n, err := strconv.ParseFloat(s, v.Type().Bits())
		if err != nil {
			return err
		}
		v.SetFloat(n)
	default:
		return errors.New("unsupported type " + v.Type().String())
	}
	return nil
}
