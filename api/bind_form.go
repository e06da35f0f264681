package api

import (
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"reflect"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/internal/bodybind"
)

// formField binds one field of a form body.
type formField struct {
	name     string
	index    int // in the form struct
	typ      reflect.Type
	parse    parseFunc
	parseAll parseAllFunc
	what     string
	file     int // 1: *multipart.FileHeader, 2: []*multipart.FileHeader
	def      string
	defs     []string // def as the values to parse, made once at registration
	hasDef   bool
	doc      reflect.StructField
}

// hasFormTags reports whether the struct t has a field with a form tag:
// such a Body reads forms rather than JSON.
func hasFormTags(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if _, ok := t.Field(i).Tag.Lookup("form"); ok {
			return true
		}
	}
	return false
}

// buildFormFields compiles the exported fields of the form struct t that
// have a form name: files, slices of scalars and scalars, with their
// defaults parsed here. It fails on a field of another type or a default
// that does not parse.
func buildFormFields(t reflect.Type) ([]*formField, error) {
	var fields []*formField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, ok := sf.Tag.Lookup("form")
		if !ok || name == "-" || !sf.IsExported() {
			continue
		}
		ff := &formField{name: name, index: i, typ: sf.Type, doc: sf}
		switch {
		case sf.Type == fileHeaderPtrType:
			ff.file = 1
		case sf.Type.Kind() == reflect.Slice && sf.Type.Elem() == fileHeaderPtrType:
			ff.file = 2
		default:
			list := sf.Type.Kind() == reflect.Slice && sf.Type.Elem().Kind() != reflect.Uint8
			var err error
			if ff.parse, ff.parseAll, ff.what, err = valueParser(sf.Type, list); err != nil {
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
		fields = append(fields, ff)
	}
	return fields, nil
}

// readForm parses an application/x-www-form-urlencoded or
// multipart/form-data body (any other media type is a 415, none with a
// body too) and binds its fields into field, the form struct. It reports
// whether a body was present.
func (ip *inputPlan) readForm(r *http.Request, field reflect.Value, media string, st *bindState) (bool, error) {
	var vals url.Values
	var files map[string][]*multipart.FileHeader
	switch media {
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return false, formError(err, "the form body is malformed")
		}
		vals = r.PostForm
	case "multipart/form-data":
		var err error
		if vals, files, err = ip.parseMultipart(r); err != nil {
			return false, err
		}
	case "":
		if r.ContentLength == 0 {
			return false, nil
		}
		fallthrough
	default:
		return false, failure(bodybind.NotForm())
	}
	for _, ff := range ip.body.fields {
		ff.bind(field.Field(ff.index), vals, files, st)
	}
	return true, nil
}

// parseMultipart parses a multipart body, keeping Config.MaxMultipartMemory
// in memory, and refuses more than Config.MaxFiles files (413).
func (ip *inputPlan) parseMultipart(r *http.Request) (url.Values, map[string][]*multipart.FileHeader, error) {
	if err := r.ParseMultipartForm(ip.cfg.maxMemory); err != nil {
		// ReadForm removes the files it wrote when it fails.
		return nil, nil, formError(err, "the multipart body is malformed")
	}
	n := 0
	for _, fs := range r.MultipartForm.File {
		n += len(fs)
	}
	if n > ip.cfg.maxFiles {
		return nil, nil, failure(bodybind.TooManyFiles(ip.cfg.maxFiles))
	}
	return r.MultipartForm.Value, r.MultipartForm.File, nil
}

// bind sets the form field v from the form's values or files: the first
// file, every file, or the non-empty values (the default when there are
// none; absent without one). A value that does not parse is a type error.
func (ff *formField) bind(v reflect.Value, vals url.Values, files map[string][]*multipart.FileHeader, st *bindState) {
	switch ff.file {
	case 1:
		if fs := files[ff.name]; len(fs) > 0 {
			v.Set(reflect.ValueOf(fs[0]))
		}
		return
	case 2:
		v.Set(reflect.ValueOf(files[ff.name]))
		return
	}
	vs := nonEmpty(vals[ff.name])
	if len(vs) == 0 {
		if !ff.hasDef {
			return
		}
		vs = ff.defs
	}
	p := v.Addr().UnsafePointer()
	if ff.parseAll != nil {
		if i, err := ff.parseAll(p, vs); err != nil {
			st.bad("body."+ff.name, "type", ff.what, vs[i])
		}
	} else if err := ff.parse(p, vs[0]); err != nil {
		st.bad("body."+ff.name, "type", ff.what, vs[0])
	}
}

// removeForm removes the temporary files of r's multipart form, if any.
func removeForm(r *http.Request) {
	if r.MultipartForm != nil {
		_ = r.MultipartForm.RemoveAll()
	}
}

// formError maps a form parsing error: a body read failure goes to the
// renderer as a *plinth.BodyError (413 over the limit, 408 too slow, 400),
// too many parts is 413, the rest a 400 with detail (see
// bodybind.FormFailure).
func formError(err error, detail string) error {
	if _, ok := errors.AsType[*plinth.BodyError](err); ok {
		return err
	}
	return failure(bodybind.FormFailure(err, detail))
}
