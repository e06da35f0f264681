package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/plinth-go/plinth"
)

// bufPool holds body buffers; large ones are dropped.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody is the largest body buffer (and body a pooled decoder has
// read) that goes back to its pool.
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
	err := decodeJSON(data, field.Addr().Interface(), ip.cfg.allowUnknown)
	switch {
	case err == nil:
		jb.needPresence = bp.v.ambiguous && bytes.Contains(data, emptyString)
		return true, nil
	case syntaxError(err):
		return false, plinth.BadRequest("the request body is not valid JSON: " + jsonErrorText(err)).Wrap(err)
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
	if !blank(jb.data[w.end:]) {
		return false, plinth.BadRequest("the request body is not valid JSON: " + errTrailing.Error()).Wrap(errTrailing)
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
		return false, plinth.BadRequest("the request body is not valid JSON: " + jsonErrorText(err)).Wrap(err)
	}
	for _, e := range w.errs {
		st.bad(e.loc, e.code, e.what, e.value)
	}
	field.SetZero()
	if decodeJSON(w.patched(), field.Addr().Interface(), true) != nil {
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

// errTrailing is the error of a body with more than blanks after its value.
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

// decoderPools hold pooledDecoders: [0] refuse unknown fields, [1] allow
// them.
var decoderPools [2]sync.Pool

// decodeJSON decodes data (one JSON value, then blanks) into target with a
// pooled decoder, refusing unknown members unless allowUnknown. Anything
// but blanks after the value is errTrailing.
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

// jsonErrorText words a decoding error for a 400's detail: a syntax error
// with its offset, a truncated body, or encoding/json's text.
func jsonErrorText(err error) string {
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return se.Error() + " (at byte " + strconv.FormatInt(se.Offset, 10) + ")"
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
