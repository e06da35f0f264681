package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"sync"

	"github.com/plinth-go/plinth/internal/bodybind"
)

// bufPool holds body buffers; large ones are dropped.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody is the largest body buffer (and body a pooled decoder has
// read) that goes back to its pool.
const maxPooledBody = bodybind.MaxPooledBody

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

// release returns the buffer to its pool.
func (jb *jsonBody) release() {
	if jb.buf != nil && jb.buf.Cap() <= maxPooledBody {
		jb.buf.Reset()
		bufPool.Put(jb.buf)
	}
	jb.buf, jb.data = nil, nil
}

// emptyString is the JSON literal "", which a body needing presence
// information contains.
var emptyString = []byte(`""`)

// readJSON reads the body into a pooled buffer and decodes it into field.
// It reports whether a body was present (only blanks is none). Malformed
// JSON or trailing data is a 400 to send at once; values of the wrong type
// and unknown members are field errors in st, and the rest of the body is
// still decoded (with those values as null), so that it is validated too.
func (ip *inputPlan) readJSON(r *http.Request, field reflect.Value, jb *jsonBody, st *bindState) (bool, error) {
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
	bp := ip.body
	err := bodybind.DecodeJSON(data, field.Addr().Interface(), ip.cfg.allowUnknown)
	switch {
	case err == nil:
		jb.needPresence = bp.v.ambiguous && bytes.Contains(data, emptyString)
		return true, nil
	case bodybind.IsSyntax(err):
		return false, failure(bodybind.MalformedJSON(err))
	}
	return ip.redecodeJSON(field, err, jb, st)
}

// redecodeJSON handles a body that encoding/json refused without a syntax
// error: a value of the wrong type, an unknown member or a failing
// UnmarshalJSON. encoding/json tells the first only, the walker all: each
// is a field error, and the body is decoded again with the bad values as
// null and unknown members let through, so that everything else is
// validated too. Trailing data found by the walk is a 400.
func (ip *inputPlan) redecodeJSON(field reflect.Value, err error, jb *jsonBody, st *bindState) (bool, error) {
	bp := ip.body
	w := walkJSON(jb.data, bp.typ, bp.v, ip.cfg.allowUnknown, "body")
	if !bodybind.Blank(jb.data[w.end:]) {
		return false, failure(bodybind.MalformedJSON(bodybind.ErrTrailing))
	}
	if len(w.errs) == 0 {
		// encoding/json refused what the walker accepts: its words
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			loc := "body"
			if te.Field != "" {
				loc += "." + te.Field
			}
			st.bad(loc, "type", typeWords(te.Type), nil)
			jb.aborted = true
			return true, nil
		}
		return false, failure(bodybind.MalformedJSON(err))
	}
	for _, e := range w.errs {
		st.bad(e.loc, e.code, e.what, e.value)
	}
	field.SetZero()
	if bodybind.DecodeJSON(w.patched(), field.Addr().Interface(), true) != nil {
		jb.aborted = true
	}
	jb.walked = w
	return true, nil
}
