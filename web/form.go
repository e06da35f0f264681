package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

// Form is an HTML form as it was sent, for rendering it again with its
// errors next to its fields and the values the user typed (Laravel's
// $errors and old()). BindForm makes one; a nil *Form is an empty form
// without errors, so that the page that shows the form the first time
// passes none. Its methods are meant for templates:
//
//	<input name="email" value="{{.Form.Old "email"}}">
//	{{with .Form.Error "email"}}<p class="error">{{.}}</p>{{end}}
type Form struct {
	values url.Values
	errs   api.FieldErrors
}

// BindForm reads the request's form (application/x-www-form-urlencoded or
// multipart/form-data) into *dst, a struct whose fields carry `form` tags,
// and validates it by their `validate` tags, then by T's Validate method
// if *T has one: the api package's binding and rules (api.Binder), so the
// same tags work in a form and in a typed operation. It returns the Form
// and nil when the form is bound: check Form.Valid, and when it is not,
// render the page again with the Form (with status 422, which form
// libraries such as Turbo expect); *dst is set only when the form is
// valid.
//
// It returns an error, for the handler to return, for a request that no
// form re-rendering answers: a body of another media type (415), a
// malformed or oversized one (400, 413), a Validate method's
// *plinth.Problem. A Validate method's other error is the form's own
// error, Form.Error(""). The messages are api.DefaultMessage's English
// ones, or, under Locales.Middleware, the "validation.<rule>" messages of
// the request's language where its catalogues have them
// (Locales.APIMessage).
//
// T is compiled at its first call and kept in a package-level cache keyed
// by type and Locales (one look-up per call after that): a T without form
// tags, or with a bad tag, makes every call fail with a 500 problem,
// logged with the reason.
func BindForm[T any](c *plinth.Ctx, dst *T) (*Form, error) {
	l, _ := c.Translator().(*Locales)
	b, err := formBinderOf[T](l)
	if err != nil {
		return nil, plinth.Error(http.StatusInternalServerError, "").Wrap(err)
	}
	var v T
	err = b.Bind(c, &v)
	f := &Form{values: sentValues(c.Request())}
	if err == nil {
		*dst = v
		return f, nil
	}
	p, ok := errors.AsType[*plinth.Problem](err)
	if !ok || p.StatusCode() != http.StatusUnprocessableEntity {
		return nil, err
	}
	if fes, ok := errors.AsType[api.FieldErrors](err); ok {
		f.errs = make(api.FieldErrors, len(fes))
		for i, e := range fes {
			// "body.email" is the form's field "email".
			loc := strings.TrimPrefix(strings.TrimPrefix(e.Location, "body"), ".")
			f.errs[i] = &api.FieldError{Location: loc, Message: e.Message, Value: e.Value}
		}
		return f, nil
	}
	if p.Extensions["errors"] == nil {
		return nil, err // a 422 that is no form's: pass it on
	}
	// A Validate method's plain error: the form's own.
	f.errs = api.FieldErrors{{Message: p.Detail}}
	return f, nil
}

// formBinders caches the binder of each type BindForm was called with,
// per Locales (nil without).
var formBinders sync.Map // formKey -> formBinder

// formKey is a type and the Locales whose messages its binder words.
type formKey struct {
	t reflect.Type
	l *Locales
}

// formBinder is the cached api.Binder of one type, or why there is none.
type formBinder struct {
	b   any // *api.Binder[T]
	err error
}

// formBinderOf returns the cached binder of T with l's messages,
// compiling it at the first call.
func formBinderOf[T any](l *Locales) (*api.Binder[T], error) {
	k := formKey{reflect.TypeFor[T](), l}
	e, ok := formBinders.Load(k)
	if !ok {
		b, err := newFormBinder[T](l)
		e, _ = formBinders.LoadOrStore(k, formBinder{b: b, err: err})
	}
	fb := e.(formBinder)
	if fb.err != nil {
		return nil, fb.err
	}
	return fb.b.(*api.Binder[T]), nil
}

// newFormBinder compiles the binder of T, a struct with form tags, with
// l's messages (Locales.APIMessage; English without l); api.NewBinder's
// panic on a bad tag is returned as the error.
func newFormBinder[T any](l *Locales) (b *api.Binder[T], err error) {
	t := reflect.TypeFor[T]()
	if !isForm(t) {
		return nil, fmt.Errorf("web.BindForm: %s is not a struct with form tags", t)
	}
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("web.BindForm: %v", r)
		}
	}()
	var cfg api.Config
	if l != nil {
		cfg.Message = l.APIMessage()
	}
	return api.NewBinder[T](cfg), nil
}

// isForm reports whether t is a struct with a field of its own that has a
// form tag, which the api package binds from a form rather than JSON.
func isForm(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		if _, ok := t.Field(i).Tag.Lookup("form"); ok {
			return true
		}
	}
	return false
}

// sentValues returns the form values of the request's body, as parsed by
// the binding (r.PostForm holds those of a multipart form too).
func sentValues(r *http.Request) url.Values {
	if r.PostForm != nil {
		return r.PostForm
	}
	if r.MultipartForm != nil {
		return r.MultipartForm.Value
	}
	return url.Values{}
}

// Valid reports whether the form has no error. A nil Form is valid.
func (f *Form) Valid() bool { return f == nil || len(f.errs) == 0 }

// Old returns the first value sent for the field name, as typed (before
// parsing and defaults), or "" when none was: what the field shows again.
// A template must not write back what should not be shown twice, such as
// a password.
func (f *Form) Old(name string) string {
	if f == nil {
		return ""
	}
	return f.values.Get(name)
}

// OldValues returns every value sent for the field name (the options
// chosen in a multiple select, the boxes checked), nil when none was.
func (f *Form) OldValues(name string) []string {
	if f == nil {
		return nil
	}
	return f.values[name]
}

// Error returns the message of the field name's first error ("is
// required"), or "" when it has none: the field's own error, or one of
// its elements' ("tags" finds "tags[1]"). Error("") is the error of the
// form as a whole (a Validate method's plain error).
func (f *Form) Error(name string) string {
	if e := f.fieldError(name); e != nil {
		return e.Message
	}
	return ""
}

// HasError reports whether the field name has an error, as Error finds it
// (for an aria-invalid or a CSS class).
func (f *Form) HasError(name string) bool { return f.fieldError(name) != nil }

// Errors returns every error of the form, in the order of its fields, each
// located by its field's name ("email", "tags[1]", "" for the form's own):
// for a summary at the top of the form. Nil when the form is valid.
func (f *Form) Errors() api.FieldErrors {
	if f == nil {
		return nil
	}
	return f.errs
}

func (f *Form) fieldError(name string) *api.FieldError {
	if f == nil {
		return nil
	}
	for _, e := range f.errs {
		loc := e.Location
		if loc == name || name != "" && strings.HasPrefix(loc, name) && (loc[len(name)] == '[' || loc[len(name)] == '.') {
			return e
		}
	}
	return nil
}
