package plinthtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/plinth-go/plinth"
)

// document is the part of an OpenAPI 3.1 document that the check reads:
// its operations, by method, with their path templates, and the whole
// document, which local references ("#/components/schemas/Name", any JSON
// pointer) resolve in.
type document struct {
	ops  []*operation
	root any // the document, decoded with UseNumber
	// v30: an OpenAPI 3.0 document (SetOpenAPI's, from another generator),
	// whose schemas say nullable: true and exclusiveMinimum: true.
	v30 bool

	mu  sync.Mutex
	res map[string]*regexp.Regexp // compiled patterns, nil for one Go cannot compile
}

type operation struct {
	method   string
	template string
	segments []string // "" for a parameter
	literals int
	// rest: the App's route ends in a {name...} wildcard, which the
	// document writes {name}: its last parameter takes the rest of the path.
	rest      bool
	responses map[string]any // status ("201", "4XX", "default") -> response object
}

// loadDocument parses the App's OpenAPI document (nil when it has none).
func (c *Client) loadDocument() (*document, error) {
	c.docOnce.Do(func() {
		data, err := c.app.OpenAPI()
		if err != nil {
			c.docErr = fmt.Errorf("plinthtest: the App's OpenAPI document: %v", err)
			return
		}
		if data == nil {
			return
		}
		c.doc, c.docErr = parseDocument(data)
		if c.doc != nil {
			c.doc.markRest(c.app.Routes())
		}
	})
	return c.doc, c.docErr
}

// decodeJSON decodes one JSON value, numbers as json.Number (so that big
// integers and decimals keep their exact value), and fails on anything
// after it but white space.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	off := dec.InputOffset()
	for i := off; i < int64(len(data)); i++ {
		switch data[i] {
		case ' ', '\t', '\n', '\r': // JSON's white space
		default:
			return nil, fmt.Errorf("data after the JSON value at byte %d", i)
		}
	}
	return v, nil
}

// parseDocument reads an OpenAPI document's operations.
func parseDocument(data []byte) (*document, error) {
	root, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("plinthtest: the App's OpenAPI document is not JSON: %v", err)
	}
	top, _ := root.(map[string]any)
	paths, _ := top["paths"].(map[string]any)
	version, _ := top["openapi"].(string)
	d := &document{root: root, res: map[string]*regexp.Regexp{}, v30: strings.HasPrefix(version, "3.0")}
	for tmpl, it := range paths {
		item, _ := d.resolve(it).(map[string]any)
		for method, opData := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
			default:
				continue
			}
			op, ok := opData.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("plinthtest: OpenAPI operation %s %s is not an object", method, tmpl)
			}
			responses, _ := op["responses"].(map[string]any)
			o := &operation{method: strings.ToUpper(method), template: tmpl, responses: responses}
			for _, seg := range pathSegments(tmpl) {
				if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
					o.segments = append(o.segments, "")
				} else {
					o.segments = append(o.segments, seg)
					o.literals++
				}
			}
			d.ops = append(d.ops, o)
		}
	}
	sort.Slice(d.ops, func(i, j int) bool { // the same operation wins at every run
		if d.ops[i].template != d.ops[j].template {
			return d.ops[i].template < d.ops[j].template
		}
		return d.ops[i].method < d.ops[j].method
	})
	return d, nil
}

// markRest marks the operations whose route ends in a {name...} wildcard
// (the document writes it {name}), so that find matches them for paths
// of any depth below.
func (d *document) markRest(routes []plinth.RouteInfo) {
	for _, rt := range routes {
		method, path, ok := strings.Cut(rt.Pattern, " ")
		if !ok {
			method, path = "", rt.Pattern
		}
		path = strings.TrimSpace(path)
		if !strings.HasSuffix(path, "...}") || !strings.HasPrefix(path, "/") {
			continue
		}
		tmpl := strings.ReplaceAll(strings.ReplaceAll(path, "{$}", ""), "...}", "}")
		for _, o := range d.ops {
			if o.template == tmpl && (method == "" || o.method == method) {
				o.rest = true
			}
		}
	}
}

// find returns the operation of method and path (escaped, as in the
// request line): among the templates that match, the one with the most
// literal segments. A parameter matches one segment, %2F included; the
// last one of a route with a {name...} wildcard, the rest of the path.
func (d *document) find(method, path string) *operation {
	segs := pathSegments(path)
	var best *operation
	for _, o := range d.ops {
		if o.method != method || len(o.segments) != len(segs) && !(o.rest && len(segs) > len(o.segments)) {
			continue
		}
		ok := true
		for i, s := range o.segments {
			seg := segs[i]
			if s != "" {
				if u, err := url.PathUnescape(seg); err == nil {
					seg = u
				}
			}
			if s != "" && s != seg || s == "" && seg == "" && !(o.rest && i == len(o.segments)-1) {
				ok = false
				break
			}
		}
		if ok && (best == nil || o.literals > best.literals) {
			best = o
		}
	}
	return best
}

// pathSegments splits a path or template into its segments: none for
// "/", whose one empty segment would otherwise read as a parameter (the
// root operation then matched every one-segment path and never "/").
func pathSegments(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// checkOpenAPI says what is wrong when r does not conform to the operation of
// the App's OpenAPI document that req reaches: its status is declared (or
// a range or default is), its headers match the declared ones, its content
// type is one the response lists, and its JSON body matches the schema.
// Requests that reach no operation of the document are not checked.
func (c *Client) checkOpenAPI(req *http.Request, r *Response) string {
	d, err := c.loadDocument()
	if err != nil {
		return err.Error()
	}
	if d == nil {
		return ""
	}
	op := d.find(req.Method, req.URL.EscapedPath())
	if op == nil {
		return ""
	}
	if msg := d.conform(op, req.Method, r.code, r.header, r.buf.Bytes()); msg != "" {
		return fmt.Sprintf("OpenAPI: the response does not match %s %s in the App's OpenAPI document: %s\n  (Config.SkipOpenAPI switches the check off)%s", op.method, op.template, msg, r.describe())
	}
	return ""
}

// conform returns what is wrong with a response of op to a request of
// method, or "".
func (d *document) conform(op *operation, method string, code int, header http.Header, body []byte) string {
	status := strconv.Itoa(code)
	key := status
	resp, ok := op.responses[key]
	for _, k := range []string{status[:1] + "XX", status[:1] + "xx", "default"} {
		if ok {
			break
		}
		key = k
		resp, ok = op.responses[k]
	}
	if !ok {
		declared := make([]string, 0, len(op.responses))
		for k := range op.responses {
			declared = append(declared, k)
		}
		sort.Strings(declared)
		return fmt.Sprintf("status %d is not declared (declared: %s)", code, strings.Join(declared, ", "))
	}
	ro, _ := d.resolve(resp).(map[string]any)
	if msg := d.conformHeaders(ro, header, code); msg != "" {
		return msg
	}
	content, _ := ro["content"].(map[string]any)
	if method == http.MethodHead || code == http.StatusNoContent || code == http.StatusNotModified {
		return "" // no body
	}
	if len(content) == 0 {
		// A declared code without content promises no body; "default" and
		// ranges (plain routes' "Response of a plain route (not described)")
		// promise nothing.
		if len(body) > 0 && key == status {
			return fmt.Sprintf("a body of %d bytes, but the document declares no content for status %d", len(body), code)
		}
		return ""
	}
	mt, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	media, ok := lookupMedia(content, mt)
	if !ok {
		listed := make([]string, 0, len(content))
		for k := range content {
			listed = append(listed, k)
		}
		sort.Strings(listed)
		if mt == "" {
			mt = "none"
		}
		return fmt.Sprintf("content type %s is not listed for status %d (listed: %s)", mt, code, strings.Join(listed, ", "))
	}
	if !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return ""
	}
	// A JSON body is JSON (RFC 8259: UTF-8, one value) even where the
	// document gives no schema.
	if !utf8.Valid(body) {
		return "the body is not valid UTF-8, which JSON must be"
	}
	v, err := decodeJSON(body)
	if err != nil {
		if len(bytes.TrimSpace(body)) == 0 {
			return fmt.Sprintf("the body is empty, want JSON (%s)", mt)
		}
		return fmt.Sprintf("the body is not valid JSON: %v", err)
	}
	mo, _ := d.resolve(media).(map[string]any)
	schema, hasSchema := mo["schema"]
	if !hasSchema {
		return ""
	}
	if rel, msg := d.validate(v, schema, 0); msg != "" {
		return fmt.Sprintf("at $%s: %s", rel, msg)
	}
	return ""
}

// lookupMedia finds the media type object of the response's content type
// mt: the exact type, then "type/*", then "*/*". Keys are compared without
// their parameters and case.
func lookupMedia(content map[string]any, mt string) (any, bool) {
	if mt == "" {
		return nil, false
	}
	if v, ok := content[mt]; ok {
		return v, true
	}
	typ, _, _ := strings.Cut(mt, "/")
	var ranged, any_ any
	var hasRanged, hasAny bool
	for k, v := range content {
		kt, _, err := mime.ParseMediaType(k)
		if err != nil {
			kt = strings.ToLower(strings.TrimSpace(k))
		}
		switch kt {
		case mt:
			return v, true
		case typ + "/*":
			ranged, hasRanged = v, true
		case "*/*":
			any_, hasAny = v, true
		}
	}
	if hasRanged {
		return ranged, true
	}
	return any_, hasAny
}

// conformHeaders checks the response headers that ro declares: a required
// one is present, and a present one's value matches its schema (the value
// read as the schema's type: a number, a boolean or a string).
// Content-Type is left to the content check, as OpenAPI says.
func (d *document) conformHeaders(ro map[string]any, header http.Header, code int) string {
	declared, _ := ro["headers"].(map[string]any)
	names := make([]string, 0, len(declared))
	for k := range declared {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		if strings.EqualFold(name, "Content-Type") {
			continue
		}
		h, _ := d.resolve(declared[name]).(map[string]any)
		values, present := header[http.CanonicalHeaderKey(name)]
		if !present || len(values) == 0 {
			if req, _ := h["required"].(bool); req {
				return fmt.Sprintf("the header %s is required for status %d but absent", name, code)
			}
			continue
		}
		schema, ok := h["schema"]
		if !ok {
			continue
		}
		v := d.headerValue(values[0], schema)
		if _, msg := d.validate(v, schema, 0); msg != "" {
			return fmt.Sprintf("the header %s: %s", name, msg)
		}
	}
	return ""
}

// headerValue reads a header's text as a JSON value of a type its schema
// allows: a number or boolean when the schema wants one and the text is
// one, the string otherwise (so that the type check names what is wrong).
func (d *document) headerValue(s string, schema any) any {
	m, _ := d.resolve(schema).(map[string]any)
	types := typeNames(m["type"])
	for _, t := range types {
		switch t {
		case "integer", "number":
			if n := json.Number(strings.TrimSpace(s)); numberRat(n) != nil && json.Valid([]byte(n)) {
				return n
			}
		case "boolean":
			if b, err := strconv.ParseBool(s); err == nil && (s == "true" || s == "false") {
				return b
			}
		}
	}
	return s
}

// resolve follows local references ("#/components/responses/Name", any
// JSON pointer into the document) until it reaches something that is not
// one; nil for a reference it cannot follow.
func (d *document) resolve(v any) any {
	for range 32 {
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return v
		}
		v, ok = d.pointer(ref)
		if !ok {
			return nil
		}
	}
	return nil
}

// pointer returns the value that the local reference ref ("#/a/b~1c")
// points to.
func (d *document) pointer(ref string) (any, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	v := d.root
	if frag == "" {
		return v, true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, false
	}
	for rest, more := frag[1:], true; more; {
		var tok string
		tok, rest, more = strings.Cut(rest, "/")
		if strings.Contains(tok, "~") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		}
		switch x := v.(type) {
		case map[string]any:
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
