package api

import (
	"net/http"
	"reflect"
	"unsafe"

	"github.com/plinth-go/plinth"
)

// Binding reads one request into an In value, source by source (files
// bind_path.go, bind_query.go, bind_header.go, bind_cookie.go, and the body:
// bind_body.go, bind_json.go, bind_form.go), gathering every value that
// does not parse, then validates what it read (validate.go). Only the
// failures allocate: a valid request costs the values it decodes.

// bindState is what binding one request gathers: the field errors so far,
// and their locations, which validation then skips.
type bindState struct {
	base unsafe.Pointer // the In value
	r    *http.Request
	msgs messages
	errs []*FieldError
	skip []string // locations that failed to decode: not validated
}

// bad records a field error at loc: the rule code with its argument, and
// the offending value (a string is truncated), nil for none.
func (st *bindState) bad(loc, code, param string, value any) {
	if s, ok := value.(string); ok {
		value = truncate(s)
	}
	st.errs = append(st.errs, &FieldError{Location: loc, Message: st.msgs.text(st.r, code, param), Value: value})
	st.skip = append(st.skip, loc)
}

// set parses s into p's field of the In value; a value that does not parse
// is a type error.
func (st *bindState) set(p *param, s string) {
	if err := p.parse(addr(st.base, p.offset), s); err != nil {
		st.bad(p.loc, "type", p.what, s)
	}
}

// setAll parses vals into p's slice field of the In value; the first value
// that does not parse is a type error.
func (st *bindState) setAll(p *param, vals []string) {
	if i, err := p.parseAll(addr(st.base, p.offset), vals); err != nil {
		st.bad(p.loc, "type", p.what, vals[i])
	}
}

// missing handles an absent parameter: its default if it has one, else "is
// required" if it is required, else nothing (the field keeps its zero
// value).
func (st *bindState) missing(p *param) {
	switch {
	case p.hasDef && p.parseAll != nil:
		st.setAll(p, p.defs)
	case p.hasDef:
		st.set(p, p.def)
	case p.required:
		st.bad(p.loc, "required", "", nil)
	}
}

// bind fills the In value in (addressable) from the request and validates
// it, returning nil or the error to send: a 400, 413, 415 or 422 problem, or
// a *plinth.BodyError for a body that could not be read (413, 408, 400).
// Every value that does not parse and every rule that fails is in the one
// 422. On an error, a multipart form it parsed is removed at once. The body
// type's Validate hook runs last, once everything passed.
func (ip *inputPlan) bind(c *plinth.Ctx, in reflect.Value) (err error) {
	st := bindState{base: in.Addr().UnsafePointer(), r: c.Request(), msgs: ip.cfg.msgs}
	ip.bindPath(c, &st)
	ip.bindQuery(st.r.URL.RawQuery, &st)
	ip.bindQueryLists(st.r, &st)
	ip.bindHeaders(st.r.Header, &st)
	ip.bindCookies(st.r, &st)

	var body reflect.Value // the decoded body value, invalid if none
	var jb jsonBody
	defer jb.release()
	if ip.body != nil {
		if ip.body.form {
			defer func() {
				if err != nil {
					removeForm(st.r) // no temporary file outlives a refused request
				}
			}()
		}
		if body, err = ip.bindBody(in, &st, &jb); err != nil {
			return err
		}
	}
	if err := ip.validate(st.base, body, &st, &jb); err != nil {
		return err
	}
	if body.IsValid() && ip.body.hook {
		return runHook(c, body.Addr().Interface().(Validator))
	}
	return nil
}

// validate checks the parameters of the In value at base and the body
// value against their rules. A fast pass stops at the first failure and
// allocates nothing; only when something failed, in binding or in the fast
// pass (or when a JSON body's "" must be told from an absent member), a
// second pass collects every failure with its location, skipping the
// locations that failed to bind. It returns nil or the 422 problem.
func (ip *inputPlan) validate(base unsafe.Pointer, body reflect.Value, st *bindState, jb *jsonBody) error {
	var bodyPtr unsafe.Pointer
	if body.IsValid() && ip.body.check != nil {
		bodyPtr = body.Addr().UnsafePointer()
	}
	if st.errs == nil && !jb.needPresence && ip.passes(base, bodyPtr) {
		return nil
	}
	col := &collector{msgs: st.msgs, r: st.r, skip: st.skip}
	for _, p := range ip.params {
		if p.check != nil {
			col.path = append(col.path[:0], p.loc...)
			p.check(addr(base, p.offset), col)
		}
	}
	if bodyPtr != nil {
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
	if errs := append(st.errs, col.errs...); len(errs) > 0 {
		return validationProblem(errs)
	}
	return nil
}

// passes is the fast pass: it reports whether every parameter of the In
// value at base and the body at bodyPtr (nil: none, or nothing to check)
// pass their checks, stopping at the first failure.
func (ip *inputPlan) passes(base, bodyPtr unsafe.Pointer) bool {
	for _, p := range ip.params {
		if p.check != nil && !p.check(addr(base, p.offset), nil) {
			return false
		}
	}
	return bodyPtr == nil || ip.body.check(bodyPtr, nil)
}
