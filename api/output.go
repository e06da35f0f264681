package api

import (
	"encoding"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"reflect"
	"strconv"

	"github.com/plinth-go/plinth"
)

// outputPlan is the compiled writer of one Out type.
//
// An Out struct with a field named Body or a field tagged `header` is a
// response description: an optional `Status int` field sets the status,
// header fields set headers, Body is the body. Any other Out is the JSON
// body itself.
//
// The writer reaches the Out's fields through reflect.Value. It used to
// read them through unsafe offsets, which saved nothing measurable:
// BenchmarkBindParams, which writes a Status, a header and a body, took
// 1003 ns with unsafe here (and in the request body's and the forms'
// binding) and 991 ns without (benchstat p=0.25, n=15).
type outputPlan struct {
	typ        reflect.Type
	structured bool
	empty      bool // struct{}: the response is 204 No Content
	status     int  // index+1 of the Status field, 0 for none
	headers    []outHeader
	body       *reflect.StructField
	bodyKind   int // bodyJSON, bodyBytes, bodyString, bodyReader
	bodyType   reflect.Type
	hasCT      bool // a header field sets Content-Type
}

// The kinds of response body.
const (
	bodyJSON   = iota // any other type: JSON
	bodyBytes         // []byte: application/octet-stream
	bodyString        // string: text/plain
	bodyReader        // an io.Reader interface: application/octet-stream, copied
)

// outHeader is a header field of an Out.
type outHeader struct {
	name   string // canonical
	field  reflect.StructField
	format func(v reflect.Value) string
}

// readerType is io.Reader: a Body of an interface type that has it is copied.
var readerType = reflect.TypeFor[io.Reader]()

// analyseOutput compiles the writer of Out for the operation where (for
// the panic message); it panics on a type it cannot write.
func analyseOutput[Out any](where string) *outputPlan {
	t := reflect.TypeFor[Out]()
	op, err := buildOutput(t)
	if err != nil {
		panic(fmt.Sprintf("api: %s: output %s: %v", where, t, err))
	}
	return op
}

// buildOutput compiles the writer of t: empty (204), a JSON body, or a
// response description (see outputPlan). It fails on a Status field that is
// not an int or a header field it cannot format.
func buildOutput(t reflect.Type) (*outputPlan, error) {
	op := &outputPlan{typ: t}
	if t.Kind() != reflect.Struct {
		return op, nil
	}
	if t.NumField() == 0 {
		op.empty = true
		return op, nil
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if _, ok := f.Tag.Lookup("header"); ok || f.Name == "Body" {
			op.structured = true
		}
	}
	if !op.structured {
		return op, nil
	}
	for i := 0; i < t.NumField(); i++ {
		if err := op.addField(t.Field(i)); err != nil {
			return nil, err
		}
	}
	return op, nil
}

// addField compiles one field of a response description: Body, Status or
// a header; other fields are ignored.
func (op *outputPlan) addField(f reflect.StructField) error {
	switch {
	case f.Name == "Body":
		op.body, op.bodyType, op.bodyKind = &f, f.Type, bodyKindOf(f.Type)
	case f.Name == "Status":
		if f.Type.Kind() != reflect.Int {
			return fmt.Errorf("field Status must be an int")
		}
		op.status = f.Index[0] + 1
	default:
		name, ok := f.Tag.Lookup("header")
		if !ok {
			return nil
		}
		if !f.IsExported() {
			return fmt.Errorf("header field %s is not exported", f.Name)
		}
		if name == "" {
			name = f.Name
		}
		h := outHeader{name: textproto.CanonicalMIMEHeaderKey(name), field: f, format: headerFormatter(f.Type)}
		if h.format == nil {
			return fmt.Errorf("header field %s cannot be of type %s", f.Name, f.Type)
		}
		op.hasCT = op.hasCT || h.name == "Content-Type"
		op.headers = append(op.headers, h)
	}
	return nil
}

// bodyKindOf returns how a Body of type t is written.
func bodyKindOf(t reflect.Type) int {
	switch {
	case t == bytesType:
		return bodyBytes
	case t.Kind() == reflect.String:
		return bodyString
	case t.Kind() == reflect.Interface && t.Implements(readerType):
		return bodyReader
	}
	return bodyJSON
}

// headerFormatter renders a header field: strings as they are, numbers and
// booleans with strconv, encoding.TextMarshaler and fmt.Stringer by their
// methods (time.Time as RFC 3339), a pointer as what it points to (nil:
// empty); an empty result sends no header. It returns nil for another type.
func headerFormatter(t reflect.Type) func(v reflect.Value) string {
	if t.Implements(textMarshalerType) {
		return func(v reflect.Value) string {
			b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
			if err != nil {
				return ""
			}
			return string(b)
		}
	}
	switch k := t.Kind(); {
	case k == reflect.String:
		return reflect.Value.String
	case k >= reflect.Int && k <= reflect.Int64:
		return func(v reflect.Value) string { return strconv.FormatInt(v.Int(), 10) }
	case k >= reflect.Uint && k <= reflect.Uint64:
		return func(v reflect.Value) string { return strconv.FormatUint(v.Uint(), 10) }
	case k == reflect.Bool:
		return func(v reflect.Value) string { return strconv.FormatBool(v.Bool()) }
	case k == reflect.Pointer:
		return pointerFormatter(t)
	}
	if t.Implements(reflect.TypeFor[fmt.Stringer]()) {
		return func(v reflect.Value) string { return v.Interface().(fmt.Stringer).String() }
	}
	return nil
}

// pointerFormatter renders what a pointer points to, "" for nil.
func pointerFormatter(t reflect.Type) func(v reflect.Value) string {
	inner := headerFormatter(t.Elem())
	if inner == nil {
		return nil
	}
	return func(v reflect.Value) string {
		if v.IsNil() {
			return ""
		}
		return inner(v.Elem())
	}
}

var (
	octetStream = []string{"application/octet-stream"}
	textPlain   = []string{"text/plain; charset=utf-8"}
)

// write sends o, the handler's *Out, with the default status def (the Out's
// Status field overrides it): no content, the Out as JSON, or the
// response it describes (headers, then the body).
func (op *outputPlan) write(c *plinth.Ctx, o any, def int) error {
	if op.empty {
		return c.NoContent(http.StatusNoContent)
	}
	if !op.structured {
		return c.JSON(def, o)
	}
	out := reflect.ValueOf(o).Elem()
	status := def
	if op.status != 0 {
		if s := int(out.Field(op.status - 1).Int()); s != 0 {
			status = s
		}
	}
	h := c.Header()
	for i := range op.headers {
		oh := &op.headers[i]
		if v := oh.format(out.Field(oh.field.Index[0])); v != "" {
			h[oh.name] = []string{v}
		}
	}
	if op.body == nil {
		return c.NoContent(status)
	}
	return op.writeBody(c, out.Field(op.body.Index[0]), status)
}

// writeBody sends the Body field v with status: bytes and readers as
// application/octet-stream, a string as text/plain (unless a header field
// set the Content-Type), anything else as JSON; a nil pointer or reader
// sends no body.
func (op *outputPlan) writeBody(c *plinth.Ctx, v reflect.Value, status int) error {
	h := c.Header()
	ownCT := op.hasCT && h["Content-Type"] != nil
	switch op.bodyKind {
	case bodyBytes:
		return writeRaw(c, status, ownCT, octetStream, v.Bytes())
	case bodyString:
		if !ownCT {
			h["Content-Type"] = textPlain
		}
		w := c.Writer()
		w.WriteHeader(status)
		_, err := io.WriteString(w, v.String())
		return err
	case bodyReader:
		return writeReader(c, status, ownCT, v)
	}
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return c.NoContent(status)
	}
	if !ownCT {
		return c.JSON(status, v.Addr().Interface())
	}
	// a JSON body with its own media type (application/merge-patch+json)
	b, err := json.Marshal(v.Addr().Interface())
	if err != nil {
		return err
	}
	return writeRaw(c, status, true, nil, append(b, '\n'))
}

// writeRaw sends b with status, under the Content-Type ct unless the Out
// set its own (ownCT).
func writeRaw(c *plinth.Ctx, status int, ownCT bool, ct []string, b []byte) error {
	if !ownCT {
		c.Header()["Content-Type"] = ct
	}
	w := c.Writer()
	w.WriteHeader(status)
	_, err := w.Write(b)
	return err
}

// writeReader copies the io.Reader in v to the response with status (as
// application/octet-stream unless the Out set its own Content-Type) and
// closes it if it is an io.Closer; a nil reader sends no body.
func writeReader(c *plinth.Ctx, status int, ownCT bool, v reflect.Value) error {
	if v.IsNil() {
		return c.NoContent(status)
	}
	rd := v.Interface().(io.Reader)
	if cl, ok := rd.(io.Closer); ok {
		defer cl.Close()
	}
	if !ownCT {
		c.Header()["Content-Type"] = octetStream
	}
	w := c.Writer()
	w.WriteHeader(status)
	_, err := io.Copy(w, rd)
	return err
}
