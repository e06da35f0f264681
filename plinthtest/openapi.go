package plinthtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"mime"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// document is the part of an OpenAPI 3.1 document that the check reads:
// its operations, by method, with their path templates.
type document struct {
	ops     []*operation
	schemas map[string]any // components.schemas

	mu  sync.Mutex
	res map[string]*regexp.Regexp // compiled patterns
}

type operation struct {
	method    string
	template  string
	segments  []string // "" for a parameter
	literals  int
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
	})
	return c.doc, c.docErr
}

// parseDocument reads an OpenAPI document's operations.
func parseDocument(data []byte) (*document, error) {
	var raw struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("plinthtest: the App's OpenAPI document is not JSON: %v", err)
	}
	d := &document{schemas: raw.Components.Schemas, res: map[string]*regexp.Regexp{}}
	for tmpl, item := range raw.Paths {
		for method, opData := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
			default:
				continue
			}
			var op struct {
				Responses map[string]any `json:"responses"`
			}
			if err := json.Unmarshal(opData, &op); err != nil {
				return nil, fmt.Errorf("plinthtest: OpenAPI operation %s %s: %v", method, tmpl, err)
			}
			o := &operation{method: strings.ToUpper(method), template: tmpl, responses: op.Responses}
			for _, seg := range strings.Split(strings.Trim(tmpl, "/"), "/") {
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
	return d, nil
}

// find returns the operation of method and path: among the templates that
// match, the one with the most literal segments.
func (d *document) find(method, path string) *operation {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var best *operation
	for _, o := range d.ops {
		if o.method != method || len(o.segments) != len(segs) {
			continue
		}
		ok := true
		for i, s := range o.segments {
			if s != "" && s != segs[i] || s == "" && segs[i] == "" {
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

// checkOpenAPI says what is wrong when r does not conform to the operation of
// the App's OpenAPI document that req reaches: its status is declared (or
// a range or default is), its content type is one the response lists, and
// its JSON body matches the schema. Requests that reach no operation of
// the document are not checked.
func (c *Client) checkOpenAPI(req *http.Request, r *Response) string {
	d, err := c.loadDocument()
	if err != nil {
		return err.Error()
	}
	if d == nil {
		return ""
	}
	op := d.find(req.Method, req.URL.Path)
	if op == nil {
		return ""
	}
	if msg := d.conform(op, r.code, r.header.Get("Content-Type"), r.buf.Bytes()); msg != "" {
		return fmt.Sprintf("OpenAPI: the response does not match %s %s in the App's OpenAPI document: %s\n  (Config.SkipOpenAPI switches the check off)%s", op.method, op.template, msg, r.describe())
	}
	return ""
}

// conform returns what is wrong with a response of op, or "".
func (d *document) conform(op *operation, code int, contentType string, body []byte) string {
	status := strconv.Itoa(code)
	resp, ok := op.responses[status]
	if !ok {
		resp, ok = op.responses[status[:1]+"XX"]
	}
	if !ok {
		resp, ok = op.responses["default"]
	}
	if !ok {
		declared := make([]string, 0, len(op.responses))
		for k := range op.responses {
			declared = append(declared, k)
		}
		sort.Strings(declared)
		return fmt.Sprintf("status %d is not declared (declared: %s)", code, strings.Join(declared, ", "))
	}
	ro, _ := d.deref(resp).(map[string]any)
	content, _ := ro["content"].(map[string]any)
	if len(content) == 0 {
		return ""
	}
	if len(body) == 0 && (code == http.StatusNoContent || code == http.StatusNotModified) {
		return ""
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	media, ok := content[mt]
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
	schema := d.deref(media.(map[string]any)["schema"])
	if schema == nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Sprintf("the body is not valid JSON: %v", err)
	}
	if rel, msg := d.validate(v, schema, 0); msg != "" {
		return fmt.Sprintf("at $%s: %s", rel, msg)
	}
	return ""
}

// deref follows a local $ref ("#/components/schemas/Name").
func (d *document) deref(s any) any {
	for range 32 {
		m, ok := s.(map[string]any)
		if !ok {
			return s
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return s
		}
		name, found := strings.CutPrefix(ref, "#/components/schemas/")
		if !found {
			return nil // not a schema reference: not checked
		}
		s = d.schemas[name]
	}
	return nil
}

// validate checks v against schema, the subset of JSON Schema 2020-12
// that the api package's generator writes: $ref, type, properties,
// required, additionalProperties, items, enum, const, allOf, not,
// minimum, maximum (and exclusive), minLength, maxLength, pattern,
// minItems, maxItems, minProperties, maxProperties, and the date-time
// format. The generator writes no nullability and Go encodes a nil slice,
// map or pointer as null, so null passes any schema. It returns the JSON
// path of the first mismatch below v ("" for v itself, ".a[2]" below it:
// built only on a mismatch, so that a valid body costs no strings) and
// what it is, or two empty strings.
func (d *document) validate(v, schema any, depth int) (string, string) {
	if depth > 64 {
		return "", ""
	}
	schema = d.deref(schema)
	switch s := schema.(type) {
	case bool:
		if !s {
			return "", "no value is allowed here"
		}
		return "", ""
	case map[string]any:
		if v == nil {
			return "", ""
		}
		return d.validateKeywords(v, s, depth)
	}
	return "", ""
}

func (d *document) validateKeywords(v any, s map[string]any, depth int) (string, string) {
	if t, ok := s["type"].(string); ok {
		if got := jsonType(v); got != t && !(t == "number" && got == "integer") {
			return "", fmt.Sprintf("%s %s, want %s", got, short(v), t)
		}
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			if jsonEqual(x, v) {
				found = true
				break
			}
		}
		if !found {
			return "", fmt.Sprintf("%s is not one of %s", short(v), short(e))
		}
	}
	if cst, ok := s["const"]; ok && !jsonEqual(cst, v) {
		return "", fmt.Sprintf("%s, want %s", short(v), short(cst))
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			if p, m := d.validate(v, sub, depth+1); m != "" {
				return p, m
			}
		}
	}
	if not, ok := s["not"]; ok {
		if _, m := d.validate(v, not, depth+1); m == "" {
			return "", "matches a schema it must not"
		}
	}
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		if m, ok := num(s, "minimum"); ok && f < m {
			return "", fmt.Sprintf("%s is below the minimum %v", x, m)
		}
		if m, ok := num(s, "maximum"); ok && f > m {
			return "", fmt.Sprintf("%s is above the maximum %v", x, m)
		}
		if m, ok := num(s, "exclusiveMinimum"); ok && f <= m {
			return "", fmt.Sprintf("%s is not above %v", x, m)
		}
		if m, ok := num(s, "exclusiveMaximum"); ok && f >= m {
			return "", fmt.Sprintf("%s is not below %v", x, m)
		}
		if s["type"] == "integer" && f != math.Trunc(f) {
			return "", fmt.Sprintf("%s is not an integer", x)
		}
	case string:
		n := len([]rune(x))
		if m, ok := num(s, "minLength"); ok && float64(n) < m {
			return "", fmt.Sprintf("%q is shorter than %v characters", x, m)
		}
		if m, ok := num(s, "maxLength"); ok && float64(n) > m {
			return "", fmt.Sprintf("%q is longer than %v characters", x, m)
		}
		if p, ok := s["pattern"].(string); ok {
			if re := d.regexp(p); re != nil && !re.MatchString(x) {
				return "", fmt.Sprintf("%q does not match the pattern %s", x, p)
			}
		}
		if s["format"] == "date-time" {
			if _, err := time.Parse(time.RFC3339Nano, x); err != nil {
				return "", fmt.Sprintf("%q is not a date-time (RFC 3339)", x)
			}
		}
	case []any:
		if m, ok := num(s, "minItems"); ok && float64(len(x)) < m {
			return "", fmt.Sprintf("%d items, fewer than %v", len(x), m)
		}
		if m, ok := num(s, "maxItems"); ok && float64(len(x)) > m {
			return "", fmt.Sprintf("%d items, more than %v", len(x), m)
		}
		if items, ok := s["items"]; ok {
			for i, it := range x {
				if p, m := d.validate(it, items, depth+1); m != "" {
					return "[" + strconv.Itoa(i) + "]" + p, m
				}
			}
		}
	case map[string]any:
		if m, ok := num(s, "minProperties"); ok && float64(len(x)) < m {
			return "", fmt.Sprintf("%d members, fewer than %v", len(x), m)
		}
		if m, ok := num(s, "maxProperties"); ok && float64(len(x)) > m {
			return "", fmt.Sprintf("%d members, more than %v", len(x), m)
		}
		if req, ok := s["required"].([]any); ok {
			for _, name := range req {
				if n, _ := name.(string); n != "" {
					if _, ok := x[n]; !ok {
						return "." + n, "required member missing"
					}
				}
			}
		}
		props, _ := s["properties"].(map[string]any)
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names) // the first mismatch is the same at every run
		for _, k := range names {
			if ps, ok := props[k]; ok {
				if p, m := d.validate(x[k], ps, depth+1); m != "" {
					return "." + k + p, m
				}
			} else if ap, ok := s["additionalProperties"]; ok {
				if b, isBool := ap.(bool); isBool && !b {
					return "." + k, "member not in the schema (additionalProperties is false)"
				}
				if p, m := d.validate(x[k], ap, depth+1); m != "" {
					return "." + k + p, m
				}
			}
		}
	}
	return "", ""
}

// regexp compiles a schema's pattern once; one Go's RE2 cannot compile is
// not checked.
func (d *document) regexp(p string) *regexp.Regexp {
	d.mu.Lock()
	defer d.mu.Unlock()
	re, ok := d.res[p]
	if !ok {
		re, _ = regexp.Compile(p)
		d.res[p] = re
	}
	return re
}

// num reads a numeric keyword.
func num(s map[string]any, key string) (float64, bool) {
	switch n := s[key].(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// jsonType names the JSON type of v (decoded with UseNumber).
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := x.Int64(); err == nil || !strings.ContainsAny(string(x), ".eE") {
			return "integer"
		}
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// jsonEqual compares a schema's value (float64 numbers) with a body's
// (json.Number).
func jsonEqual(a, b any) bool {
	na, aNum := a.(float64)
	nb, bNum := b.(json.Number)
	if aNum && bNum {
		f, err := nb.Float64()
		return err == nil && f == na
	}
	return short(a) == short(b)
}
