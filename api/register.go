package api

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/internal/funcname"
)

// Register adds a typed operation: a route for op.Method and op.Path whose
// handler binds and validates an In, calls h with the request's context and
// writes the *Out it returns (see the package documentation and
// docs/api.md for the tags). An error from h goes to the App's error
// renderer: return a *plinth.Problem for a status other than 500.
//
// In and Out are analysed here, once: Register panics on a type it cannot
// bind or describe, a path wildcard without a `path` field, a bad validate
// or default tag (a default that the field's own rules refuse included), or
// a duplicate operation ID. The rules compiled here are what the document
// states: see docs/api.md for the semantics of absent and empty values.
func Register[In, Out any](r Registrar, op Operation, h func(context.Context, *In) (*Out, error)) {
	if h == nil {
		panic("api: Register: nil handler for " + op.Method + " " + op.Path)
	}
	register[In, Out](r, op, funcname.Of(h), func(c *plinth.Ctx, in *In) (*Out, error) { return h(c.Context(), in) })
}

// RegisterCtx is Register for a handler that wants the *plinth.Ctx (the
// request, the App's state, the request ID).
func RegisterCtx[In, Out any](r Registrar, op Operation, h func(*plinth.Ctx, *In) (*Out, error)) {
	if h == nil {
		panic("api: RegisterCtx: nil handler for " + op.Method + " " + op.Path)
	}
	register[In, Out](r, op, funcname.Of(h), h)
}

// register checks op, compiles In and Out, records the operation for the
// document and adds its route (on a group of its own when it has a body
// limit). It panics on anything Register documents.
//
// name is h's function name: the route's handler is listed (App.Routes,
// `plinth routes`) as "operationID (name)".
func register[In, Out any](r Registrar, op Operation, name string, h func(*plinth.Ctx, *In) (*Out, error)) {
	a, router, prefix, tags := r.registrar()
	op = normalise(op, prefix)
	if len(op.Tags) == 0 {
		op.Tags = tags
	}
	if op.Security == nil {
		op.Security = r.scopeSecurity()
	}
	full := prefix + op.Path
	where := op.Method + " " + full
	in := analyseInput[In](a, where)
	in.checkPath(where, full)
	out := analyseOutput[Out](where)
	if _, err := newValidators(false).compile(reflect.TypeFor[Out](), nil, asValue); err != nil {
		panic(fmt.Sprintf("api: %s: output %s: %v", where, reflect.TypeFor[Out](), err))
	}
	a.record(&opDoc{op: op, path: full, in: in, out: out}, where)

	target := router
	if op.MaxBodyBytes != 0 {
		target = router.Group("")
		target.SetBodyLimit(op.MaxBodyBytes)
	}
	target.Handle(op.Method+" "+op.Path, plinth.NamedHandler(op.OperationID+" ("+name+")", operationHandler(in, out, op.DefaultStatus, h)))
}

// normalise checks op's method and path (below a group's prefix, "" is the
// prefix itself) and fills in its defaults: the upper-case method, the
// default status (201 for POST, 200 otherwise) and the derived operation ID.
func normalise(op Operation, prefix string) Operation {
	op.Method = strings.ToUpper(strings.TrimSpace(op.Method))
	if op.Method == "" || strings.ContainsAny(op.Method, " \t/") {
		panic(fmt.Sprintf("api: operation %q: Method is required", op.Path))
	}
	if !strings.HasPrefix(op.Path, "/") && !(op.Path == "" && prefix != "") {
		panic(fmt.Sprintf("api: operation %s %q: Path must start with '/'", op.Method, op.Path))
	}
	if op.DefaultStatus == 0 {
		op.DefaultStatus = http.StatusOK
		if op.Method == http.MethodPost {
			op.DefaultStatus = http.StatusCreated
		}
	}
	if op.OperationID == "" {
		op.OperationID = deriveID(op.Method, prefix+op.Path)
	}
	return op
}

// record adds o to the document's operations; it panics if its operation
// ID is taken.
func (a *API) record(o *opDoc, where string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if prev, dup := a.ids[o.op.OperationID]; dup {
		panic(fmt.Sprintf("api: operation ID %q of %s is already used by %s", o.op.OperationID, where, prev))
	}
	a.ids[o.op.OperationID] = where
	a.ops = append(a.ops, o)
	a.skip[where] = true
}

// operationHandler returns the handler of an operation: bind and validate
// a new In (the In's Validate hook last), call h, write its *Out with the
// default status (a nil *Out: 204). A form's uploaded files are removed
// once the operation has answered.
func operationHandler[In, Out any](in *inputPlan, out *outputPlan, status int, h func(*plinth.Ctx, *In) (*Out, error)) plinth.HandlerFunc {
	form := in.body != nil && in.body.form
	_, hook := any((*In)(nil)).(Validator)
	return func(c *plinth.Ctx) error {
		if form {
			// The uploaded files are the handler's until it has answered;
			// then they go (the App removes them too, at the request's end).
			defer removeForm(c.Request())
		}
		v := new(In)
		if err := in.bind(c, reflect.ValueOf(v).Elem()); err != nil {
			return err
		}
		if hook {
			if err := runHook(c, any(v).(Validator)); err != nil {
				return err
			}
		}
		o, err := h(c, v)
		if err != nil {
			return err
		}
		if o == nil {
			return c.NoContent(http.StatusNoContent)
		}
		return out.write(c, o, status)
	}
}

// deriveID makes "get-items-by-id" of GET /items/{id}: the method, then
// each path segment in lower case with other characters as '-', a
// wildcard as "by-" and its name.
func deriveID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, seg := range strings.Split(path, "/") {
		if seg == "" || seg == "{$}" {
			continue
		}
		b.WriteByte('-')
		if strings.HasPrefix(seg, "{") {
			b.WriteString("by-")
			seg = strings.TrimSuffix(strings.Trim(seg, "{}"), "...")
		}
		for _, r := range seg {
			switch {
			case r >= 'A' && r <= 'Z':
				b.WriteRune(r + 'a' - 'A')
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
				b.WriteRune(r)
			default:
				b.WriteByte('-')
			}
		}
	}
	return b.String()
}
