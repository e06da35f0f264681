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
	"unsafe"

	"github.com/plinth-go/plinth"
)

// outputPlan is the compiled writer of one Out type.
//
// An Out struct with a field named Body or a field tagged `header` is a
// response description: an optional `Status int` field sets the status,
// header fields set headers, Body is the body. Any other Out is the JSON
// body itself.
type outputPlan struct {
	typ        reflect.Type
	structured bool
	empty      bool // struct{}: the response is 204 No Content
	status     int  // offset+1 of the Status field, 0 for none
	headers    []outHeader
	body       *reflect.StructField
	bodyKind   int // bodyJSON, bodyBytes, bodyString, bodyReader
	bodyType   reflect.Type
	hasCT      bool // a header field sets Content-Type
}

const (
	bodyJSON = iota
	bodyBytes
	bodyString
	bodyReader
)

type outHeader struct {
	name   string // canonical
	field  reflect.StructField
	format func(p unsafe.Pointer) string
}

var readerType = reflect.TypeFor[io.Reader]()

func analyseOutput[Out any](where string) *outputPlan {
	t := reflect.TypeFor[Out]()
	op, err := buildOutput(t)
	if err != nil {
		panic(fmt.Sprintf("api: %s: output %s: %v", where, t, err))
	}
	return op
}

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
		f := t.Field(i)
		switch {
		case f.Name == "Body":
			op.body = &f
			op.bodyType = f.Type
			switch {
			case f.Type == reflect.TypeFor[[]byte]():
				op.bodyKind = bodyBytes
			case f.Type.Kind() == reflect.String:
				op.bodyKind = bodyString
			case f.Type.Kind() == reflect.Interface && f.Type.Implements(readerType):
				op.bodyKind = bodyReader
			}
		case f.Name == "Status":
			if f.Type.Kind() != reflect.Int {
				return nil, fmt.Errorf("field Status must be an int")
			}
			op.status = int(f.Offset) + 1
		default:
			name, ok := f.Tag.Lookup("header")
			if !ok {
				continue
			}
			if name == "" {
				name = f.Name
			}
			h := outHeader{name: textproto.CanonicalMIMEHeaderKey(name), field: f, format: headerFormatter(f.Type)}
			if h.format == nil {
				return nil, fmt.Errorf("header field %s cannot be of type %s", f.Name, f.Type)
			}
			if h.name == "Content-Type" {
				op.hasCT = true
			}
			op.headers = append(op.headers, h)
		}
	}
	return op, nil
}

// headerFormatter renders a header field: strings as they are, numbers and
// booleans with strconv, encoding.TextMarshaler and fmt.Stringer by their
// methods (time.Time as RFC 3339); an empty result sends no header.
func headerFormatter(t reflect.Type) func(p unsafe.Pointer) string {
	if t.Implements(textMarshalerType) {
		return func(p unsafe.Pointer) string {
			b, err := reflect.NewAt(t, p).Elem().Interface().(encoding.TextMarshaler).MarshalText()
			if err != nil {
				return ""
			}
			return string(b)
		}
	}
	switch t.Kind() {
	case reflect.String:
		return func(p unsafe.Pointer) string { return *(*string)(p) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		k := t.Kind()
		return func(p unsafe.Pointer) string { return strconv.FormatInt(getInt(p, k), 10) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		k := t.Kind()
		return func(p unsafe.Pointer) string { return strconv.FormatUint(getUint(p, k), 10) }
	case reflect.Bool:
		return func(p unsafe.Pointer) string { return strconv.FormatBool(*(*bool)(p)) }
	case reflect.Pointer:
		inner := headerFormatter(t.Elem())
		if inner == nil {
			return nil
		}
		return func(p unsafe.Pointer) string {
			q := *(*unsafe.Pointer)(p)
			if q == nil {
				return ""
			}
			return inner(q)
		}
	}
	if t.Implements(reflect.TypeFor[fmt.Stringer]()) {
		return func(p unsafe.Pointer) string { return reflect.NewAt(t, p).Elem().Interface().(fmt.Stringer).String() }
	}
	return nil
}

var (
	octetStream = []string{"application/octet-stream"}
	textPlain   = []string{"text/plain; charset=utf-8"}
)

// write sends o with the default status def.
func (op *outputPlan) write(c *plinth.Ctx, o any, def int) error {
	if op.empty {
		return c.NoContent(http.StatusNoContent)
	}
	if !op.structured {
		return c.JSON(def, o)
	}
	base := reflect.ValueOf(o).UnsafePointer()
	status := def
	if op.status != 0 {
		if s := *(*int)(unsafe.Add(base, op.status-1)); s != 0 {
			status = s
		}
	}
	h := c.Header()
	for i := range op.headers {
		oh := &op.headers[i]
		if v := oh.format(unsafe.Add(base, oh.field.Offset)); v != "" {
			h[oh.name] = []string{v}
		}
	}
	if op.body == nil {
		return c.NoContent(status)
	}
	p := unsafe.Add(base, op.body.Offset)
	switch op.bodyKind {
	case bodyBytes:
		if !op.hasCT || h["Content-Type"] == nil {
			h["Content-Type"] = octetStream
		}
		w := c.Writer()
		w.WriteHeader(status)
		_, err := w.Write(*(*[]byte)(p))
		return err
	case bodyString:
		if !op.hasCT || h["Content-Type"] == nil {
			h["Content-Type"] = textPlain
		}
		w := c.Writer()
		w.WriteHeader(status)
		_, err := io.WriteString(w, *(*string)(p))
		return err
	case bodyReader:
		rd := reflect.NewAt(op.bodyType, p).Elem().Interface()
		if rd == nil {
			return c.NoContent(status)
		}
		if !op.hasCT || h["Content-Type"] == nil {
			h["Content-Type"] = octetStream
		}
		if cl, ok := rd.(io.Closer); ok {
			defer cl.Close()
		}
		w := c.Writer()
		w.WriteHeader(status)
		_, err := io.Copy(w, rd.(io.Reader))
		return err
	}
	if op.bodyType.Kind() == reflect.Pointer && *(*unsafe.Pointer)(p) == nil {
		return c.NoContent(status)
	}
	v := reflect.NewAt(op.bodyType, p).Interface()
	if op.hasCT && h["Content-Type"] != nil {
		// a JSON body with its own media type (application/merge-patch+json)
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		w := c.Writer()
		w.WriteHeader(status)
		_, err = w.Write(append(b, '\n'))
		return err
	}
	return c.JSON(status, v)
}
