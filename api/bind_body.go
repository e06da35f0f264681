package api

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/internal/bodybind"
)

// bodyPlan binds the Body field.
type bodyPlan struct {
	field    reflect.StructField
	index    []int // the field in the In struct; empty: the In value is the body (Binder)
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

// validatorType is the Validator interface, which a Body type may implement.
var validatorType = reflect.TypeFor[Validator]()

// buildBody compiles the binder of the Body field f (at index): JSON, or a
// form when its type is a struct with form tags; optional when it is a
// pointer; its rules and check, compiled with the naming of its format.
func buildBody(f reflect.StructField, index []int) (*bodyPlan, error) {
	bp := &bodyPlan{field: f, index: index, typ: f.Type, schemaOf: f.Type}
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
		var err error
		if bp.fields, err = buildFormFields(st); err != nil {
			return nil, err
		}
	}
	if tag, ok := f.Tag.Lookup("validate"); ok {
		var err error
		if bp.rules, err = parseRules(tag); err != nil {
			return nil, fmt.Errorf("field Body: %v", err)
		}
	}
	bp.v = newValidators(bp.form)
	c, err := bp.v.compile(bp.schemaOf, bp.rules, asValue)
	if err != nil {
		return nil, err
	}
	bp.check = c
	return bp, nil
}

// bindBody reads the body into its field of in and returns the value to
// validate: the field, or what it points to; the zero Value when there is
// none (an absent optional body, JSON null, a body whose decoding was cut
// short). An absent body that is not optional is "body: is required". The
// error is one to send at once (400, 413, 415, or the body read error).
func (ip *inputPlan) bindBody(in reflect.Value, st *bindState, jb *jsonBody) (reflect.Value, error) {
	bp := ip.body
	field := fieldAt(in, bp.index)
	present, err := ip.readBody(st.r, field, jb, st)
	switch {
	case err != nil:
		return reflect.Value{}, err
	case !present && !bp.optional:
		st.bad("body", "required", "", nil)
	case jb.aborted:
	case present && bp.optional:
		return field.Elem(), nil // invalid if the body was null
	case present:
		return field, nil
	}
	return reflect.Value{}, nil
}

// readBody decodes the body into field by the request's media type, which
// must be the body's: JSON (application/json, application/*+json or none)
// or a form. It reports whether a body was present; an empty body of
// another media type is absent rather than a 415.
func (ip *inputPlan) readBody(r *http.Request, field reflect.Value, jb *jsonBody, st *bindState) (bool, error) {
	media := bodybind.MediaType(r.Header.Get("Content-Type"))
	if ip.body.form {
		return ip.readForm(r, field, media, st)
	}
	if !bodybind.IsJSON(media) {
		if r.ContentLength == 0 {
			return false, nil
		}
		return false, failure(bodybind.NotJSON(media))
	}
	return ip.readJSON(r, field, jb, st)
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

// failure returns the problem of a binding failure: a *plinth.BodyError for
// a failure to read the body, else a plinth.Error with its status and
// detail.
func failure(f bodybind.Failure) error {
	if f.Status == 0 {
		return bodyReadError(f.Err)
	}
	p := plinth.Error(f.Status, f.Detail)
	if f.Err != nil {
		p = p.Wrap(f.Err)
	}
	return p
}

// fieldAt returns the field of the struct v at index (a
// reflect.StructField.Index, through embedded structs); an empty index is v
// itself.
func fieldAt(v reflect.Value, index []int) reflect.Value {
	switch len(index) {
	case 0:
		return v
	case 1:
		return v.Field(index[0])
	}
	return v.FieldByIndex(index)
}
