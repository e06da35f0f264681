package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/plinth-go/plinth"
)

// opDoc is what the document needs of one typed operation.
type opDoc struct {
	op   Operation
	path string // full ServeMux path, group prefix included
	in   *inputPlan
	out  *outputPlan
}

// Document returns the OpenAPI 3.1 document of the App as a tree of
// map[string]any, []any and JSON scalars: the typed operations with their
// schemas, and the App's other routes as minimal path items. It is rebuilt
// on each call; the served copies are built once, at their first request.
func (a *API) Document() map[string]any {
	a.mu.Lock()
	ops := slices.Clone(a.ops)
	skip := a.skip
	a.mu.Unlock()

	g := newSchemaGen(!a.cfg.AllowUnknownFields)
	g.reserve("ErrorDetail", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"location": map[string]any{"type": "string", "description": "Where the error is: path.id, query.limit, header.X-Trace, body.items[2].email.", "examples": []any{"body.email"}},
			"message":  map[string]any{"type": "string", "description": "What is wrong.", "examples": []any{"must be a valid email"}},
			"value":    map[string]any{"description": "The offending value."},
		},
		"required": []any{"location", "message"},
	})
	g.reserve("ErrorModel", map[string]any{
		"type":        "object",
		"description": "An RFC 9457 problem details document.",
		"properties": map[string]any{
			"type":       map[string]any{"type": "string", "format": "uri-reference", "default": "about:blank"},
			"title":      map[string]any{"type": "string", "examples": []any{"Unprocessable Entity"}},
			"status":     map[string]any{"type": "integer", "format": "int64", "examples": []any{422}},
			"detail":     map[string]any{"type": "string", "examples": []any{"validation failed"}},
			"instance":   map[string]any{"type": "string", "format": "uri-reference"},
			"request_id": map[string]any{"type": "string"},
			"errors":     map[string]any{"type": "array", "items": map[string]any{"$ref": "#/components/schemas/ErrorDetail"}},
		},
		"required": []any{"title", "status"},
	})

	paths := map[string]any{}
	item := func(p string) map[string]any {
		m, ok := paths[p].(map[string]any)
		if !ok {
			m = map[string]any{}
			paths[p] = m
		}
		return m
	}
	ids := map[string]bool{}
	for _, o := range ops {
		if o.op.Hidden {
			continue
		}
		ids[o.op.OperationID] = true
		item(openAPIPath(o.path))[strings.ToLower(o.op.Method)] = a.operationDoc(g, o)
	}
	// The App's other routes, as minimal path items.
	for _, rt := range a.app.Routes() {
		method, path, ok := strings.Cut(rt.Pattern, " ")
		if !ok || skip[rt.Pattern] {
			continue
		}
		path = strings.TrimSpace(path)
		if !strings.HasPrefix(path, "/") {
			continue // host patterns are not documented
		}
		m := strings.ToLower(method)
		if !documentedMethod[m] {
			continue
		}
		p := openAPIPath(path)
		if _, dup := item(p)[m]; dup {
			continue
		}
		op := map[string]any{
			"responses": map[string]any{"default": map[string]any{"description": "Response of a plain route (not described)."}},
		}
		if id := deriveID(method, path); !ids[id] {
			ids[id] = true
			op["operationId"] = id
		}
		if params := pathParams(path); len(params) > 0 {
			op["parameters"] = params
		}
		item(p)[m] = op
	}

	info := map[string]any{"title": a.cfg.Title, "version": a.cfg.Version}
	if a.cfg.Description != "" {
		info["description"] = a.cfg.Description
	}
	doc := map[string]any{
		"openapi":    "3.1.0",
		"info":       info,
		"paths":      paths,
		"components": map[string]any{"schemas": g.schemas},
	}
	if len(a.cfg.Servers) > 0 {
		var servers []any
		for _, s := range a.cfg.Servers {
			m := map[string]any{"url": s.URL}
			if s.Description != "" {
				m["description"] = s.Description
			}
			servers = append(servers, m)
		}
		doc["servers"] = servers
	}
	if len(a.cfg.SecuritySchemes) > 0 {
		ss := map[string]any{}
		for name, s := range a.cfg.SecuritySchemes {
			m := map[string]any{"type": s.Type}
			for k, v := range map[string]string{"description": s.Description, "scheme": s.Scheme, "bearerFormat": s.BearerFormat,
				"name": s.Name, "in": s.In, "openIdConnectUrl": s.OpenIDConnectURL} {
				if v != "" {
					m[k] = v
				}
			}
			ss[name] = m
		}
		doc["components"].(map[string]any)["securitySchemes"] = ss
	}
	return doc
}

var documentedMethod = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true, "head": true, "patch": true, "trace": true}

// openAPIPath turns a ServeMux path into an OpenAPI one: {name...} becomes
// {name} and {$} is dropped.
func openAPIPath(p string) string {
	p = strings.ReplaceAll(p, "{$}", "")
	return strings.ReplaceAll(p, "...}", "}")
}

func pathParams(path string) []any {
	var out []any
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") && seg != "{$}" {
			out = append(out, map[string]any{"name": strings.TrimSuffix(strings.Trim(seg, "{}"), "..."), "in": "path",
				"required": true, "schema": map[string]any{"type": "string"}})
		}
	}
	return out
}

func problemResponse(desc string) map[string]any {
	return map[string]any{"description": desc, "content": map[string]any{
		"application/problem+json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ErrorModel"}}}}
}

func (a *API) operationDoc(g *schemaGen, o *opDoc) map[string]any {
	op := map[string]any{"operationId": o.op.OperationID}
	if o.op.Summary != "" {
		op["summary"] = o.op.Summary
	}
	if o.op.Description != "" {
		op["description"] = o.op.Description
	}
	if len(o.op.Tags) > 0 {
		op["tags"] = o.op.Tags
	}
	if o.op.Deprecated {
		op["deprecated"] = true
	}
	if o.op.Security != nil {
		sec := []any{}
		for _, req := range o.op.Security {
			m := map[string]any{}
			for k, v := range req {
				if v == nil {
					v = []string{}
				}
				m[k] = v
			}
			sec = append(sec, m)
		}
		op["security"] = sec
	}
	var params []any
	for _, p := range o.in.params {
		s := g.schema(p.field.Type, p.rules, false)
		if p.hasDef {
			s["default"] = exampleValue(p.field.Type, p.def)
		}
		pm := map[string]any{"name": p.name, "in": p.in, "schema": s}
		if p.required {
			pm["required"] = true
		} else if p.in == "query" {
			// The binder takes ?name= for an absent parameter (its default,
			// or nothing): the schema does not apply to the empty value.
			pm["allowEmptyValue"] = true
		}
		if d := p.field.Tag.Get("doc"); d != "" {
			pm["description"] = d
		}
		if ex, ok := p.field.Tag.Lookup("example"); ok {
			pm["example"] = exampleValue(p.field.Type, ex)
		}
		if p.in == "header" {
			pm["name"] = p.key
		}
		params = append(params, pm)
	}
	if params != nil {
		op["parameters"] = params
	}
	responses := map[string]any{
		"400": problemResponse("Bad Request: malformed input."),
		"422": problemResponse("Unprocessable Entity: the input failed validation; errors lists every problem."),
		"500": problemResponse("Internal Server Error."),
	}
	if bp := o.in.body; bp != nil {
		s := g.schema(bp.schemaOf, bp.rules, bp.form)
		content := map[string]any{}
		if bp.form {
			hasFile := false
			for _, f := range bp.fields {
				hasFile = hasFile || f.file != 0
			}
			if !hasFile {
				content["application/x-www-form-urlencoded"] = map[string]any{"schema": s}
			}
			content["multipart/form-data"] = map[string]any{"schema": s}
		} else {
			content["application/json"] = map[string]any{"schema": s}
		}
		rb := map[string]any{"content": content}
		if !bp.optional {
			rb["required"] = true
		}
		op["requestBody"] = rb
		responses["413"] = problemResponse("Content Too Large: the body is over the limit.")
		responses["415"] = problemResponse("Unsupported Media Type.")
	}
	for _, code := range o.op.Errors {
		text := http.StatusText(code)
		if text == "" {
			text = "Error"
		}
		responses[itoa(code)] = problemResponse(text + ".")
	}
	status, resp := a.responseDoc(g, o)
	responses[status] = resp
	op["responses"] = responses
	return op
}

func (a *API) responseDoc(g *schemaGen, o *opDoc) (string, map[string]any) {
	status := o.op.DefaultStatus
	out := o.out
	t := out.typ
	if t.Kind() == reflect.Struct && t.NumField() == 0 {
		return "204", map[string]any{"description": http.StatusText(http.StatusNoContent)}
	}
	text := http.StatusText(status)
	if text == "" {
		text = "Response"
	}
	resp := map[string]any{"description": text}
	if !out.structured {
		resp["content"] = map[string]any{"application/json": map[string]any{"schema": g.schema(t, nil, false)}}
		return itoa(status), resp
	}
	if len(out.headers) > 0 {
		hs := map[string]any{}
		for _, h := range out.headers {
			if h.name == "Content-Type" {
				continue
			}
			hm := map[string]any{"schema": g.schema(h.field.Type, nil, false)}
			if d := h.field.Tag.Get("doc"); d != "" {
				hm["description"] = d
			}
			hs[h.name] = hm
		}
		if len(hs) > 0 {
			resp["headers"] = hs
		}
	}
	if out.body != nil {
		var ct string
		var s map[string]any
		switch out.bodyKind {
		case bodyBytes, bodyReader:
			ct, s = "application/octet-stream", map[string]any{"type": "string", "format": "binary"}
		case bodyString:
			ct, s = "text/plain", map[string]any{"type": "string"}
		default:
			ct, s = "application/json", g.schema(out.bodyType, nil, false)
		}
		if ex := out.body.Tag.Get("contentType"); ex != "" {
			ct = ex
		}
		resp["content"] = map[string]any{ct: map[string]any{"schema": s}}
	}
	return itoa(status), resp
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// JSON returns the document as indented JSON with sorted keys.
func (a *API) JSON() ([]byte, error) { return marshalDoc(a.Document()) }

// YAML returns the document as YAML (block style, strings double-quoted,
// keys sorted): the same content as JSON.
func (a *API) YAML() ([]byte, error) {
	j, err := marshalDoc(a.Document())
	if err != nil {
		return nil, err
	}
	return jsonToYAML(j)
}

func marshalDoc(doc map[string]any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// built returns the served JSON and YAML, built once.
func (a *API) built() ([]byte, []byte, error) {
	a.docOnce.Do(func() {
		a.docJSON, a.docErr = a.JSON()
		if a.docErr == nil {
			a.docYAML, a.docErr = jsonToYAML(a.docJSON)
		}
	})
	return a.docJSON, a.docYAML, a.docErr
}

func (a *API) serveDocument() {
	jsonPath, yamlPath := a.cfg.OpenAPIPath+".json", a.cfg.OpenAPIPath+".yaml"
	a.skip["GET "+jsonPath], a.skip["GET "+yamlPath] = true, true
	a.app.Get(jsonPath, func(c *plinth.Ctx) error {
		j, _, err := a.built()
		if err != nil {
			return err
		}
		return c.Bytes(http.StatusOK, "application/json", j)
	})
	a.app.Get(yamlPath, func(c *plinth.Ctx) error {
		_, y, err := a.built()
		if err != nil {
			return err
		}
		return c.Bytes(http.StatusOK, "application/yaml", y)
	})
}
