package api

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api/openapi"
)

// opDoc is what the document needs of one typed operation.
type opDoc struct {
	op   Operation
	path string // full ServeMux path, group prefix included
	in   *inputPlan
	out  *outputPlan
}

// Document returns the OpenAPI 3.1 document of the App: the typed
// operations with their schemas, and the App's other routes as minimal
// path items. It is built anew on each call, so the caller may change it;
// the served copies are built once, at their first request.
func (a *API) Document() *openapi.Document {
	a.mu.Lock()
	ops := slices.Clone(a.ops)
	skip := a.skip
	a.mu.Unlock()

	g := newSchemaGen(!a.cfg.AllowUnknownFields)
	g.reserve("ErrorDetail", errorDetailSchema())
	g.reserve("ErrorModel", errorModelSchema())
	doc := &openapi.Document{
		OpenAPI:    openapi.Version,
		Info:       openapi.Info{Title: a.cfg.Title, Version: a.cfg.Version, Description: a.cfg.Description},
		Paths:      map[string]*openapi.PathItem{},
		Components: &openapi.Components{Schemas: g.schemas},
		Servers:    slices.Clone(a.cfg.Servers),
	}
	ids := map[string]bool{} // operation IDs in the document
	for _, o := range ops {
		if o.op.Hidden {
			continue
		}
		slot := pathItem(doc, openAPIPath(o.path)).Method(o.op.Method)
		if slot == nil {
			continue // a method that OpenAPI has no field for (CONNECT, PURGE)
		}
		ids[o.op.OperationID] = true
		*slot = a.operationDoc(g, o)
	}
	addPlainRoutes(doc, a.app.Routes(), skip, ids)
	if len(a.cfg.SecuritySchemes) > 0 || len(a.schemes) > 0 {
		doc.Components.SecuritySchemes = map[string]*openapi.SecurityScheme{}
		for name, s := range a.schemes {
			doc.Components.SecuritySchemes[name] = &s
		}
		for name, s := range a.cfg.SecuritySchemes { // the Config's win
			doc.Components.SecuritySchemes[name] = &s
		}
	}
	return doc
}

// pathItem returns the path item of p in doc, adding it if needed.
func pathItem(doc *openapi.Document, p string) *openapi.PathItem {
	it := doc.Paths[p]
	if it == nil {
		it = &openapi.PathItem{}
		doc.Paths[p] = it
	}
	return it
}

// addPlainRoutes adds the App's routes that are not typed operations (nor
// the document and docs routes, listed in skip) as minimal path items:
// their path parameters, an operation ID unless a typed operation has it,
// and an undescribed default response. Routes without a method, with a
// method that a path item cannot hold, or with a host are left out, as is
// a route whose method and path a typed operation already documents.
func addPlainRoutes(doc *openapi.Document, routes []plinth.RouteInfo, skip, ids map[string]bool) {
	for _, rt := range routes {
		method, path, ok := strings.Cut(rt.Pattern, " ")
		if !ok || skip[rt.Pattern] {
			continue
		}
		path = strings.TrimSpace(path)
		if !strings.HasPrefix(path, "/") {
			continue // host patterns are not documented
		}
		if (&openapi.PathItem{}).Method(strings.ToLower(method)) == nil {
			continue
		}
		slot := pathItem(doc, openAPIPath(path)).Method(strings.ToLower(method))
		if *slot != nil {
			continue
		}
		op := &openapi.Operation{
			Responses:  map[string]*openapi.Response{"default": {Description: "Response of a plain route (not described)."}},
			Parameters: pathParams(path),
		}
		if id := deriveID(method, path); !ids[id] {
			ids[id] = true
			op.OperationID = id
		}
		*slot = op
	}
}

// errorDetailSchema is the schema of one entry of a 422 problem's errors.
func errorDetailSchema() *openapi.Schema {
	return &openapi.Schema{
		Type: "object",
		Properties: map[string]*openapi.Schema{
			"location": {Type: "string", Description: "Where the error is: path.id, query.limit, header.X-Trace, body.items[2].email.", Examples: []any{"body.email"}},
			"message":  {Type: "string", Description: "What is wrong.", Examples: []any{"must be a valid email"}},
			"value":    {Description: "The offending value."},
		},
		Required: []string{"location", "message"},
	}
}

// errorModelSchema is the schema of a problem (RFC 9457) as plinth sends
// it.
func errorModelSchema() *openapi.Schema {
	return &openapi.Schema{
		Type:        "object",
		Description: "An RFC 9457 problem details document.",
		Properties: map[string]*openapi.Schema{
			"type":       {Type: "string", Format: "uri-reference", Default: "about:blank"},
			"title":      {Type: "string", Examples: []any{"Unprocessable Entity"}},
			"status":     {Type: "integer", Format: "int64", Examples: []any{422}},
			"detail":     {Type: "string", Examples: []any{"validation failed"}},
			"instance":   {Type: "string", Format: "uri-reference"},
			"request_id": {Type: "string"},
			"errors":     {Type: "array", Items: &openapi.Schema{Ref: "#/components/schemas/ErrorDetail"}},
		},
		Required: []string{"title", "status"},
	}
}

// openAPIPath turns a ServeMux path into an OpenAPI one: {name...} becomes
// {name} and {$} is dropped.
func openAPIPath(p string) string {
	p = strings.ReplaceAll(p, "{$}", "")
	return strings.ReplaceAll(p, "...}", "}")
}

// pathParams returns the path parameters of a plain route: every wildcard
// of path, a required string.
func pathParams(path string) []*openapi.Parameter {
	var out []*openapi.Parameter
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") && seg != "{$}" {
			out = append(out, &openapi.Parameter{Name: strings.TrimSuffix(strings.Trim(seg, "{}"), "..."), In: "path",
				Required: true, Schema: &openapi.Schema{Type: "string"}})
		}
	}
	return out
}

// problemResponse is a response whose body is a problem (ErrorModel).
func problemResponse(desc string) *openapi.Response {
	return &openapi.Response{Description: desc, Content: map[string]*openapi.MediaType{
		"application/problem+json": {Schema: &openapi.Schema{Ref: "#/components/schemas/ErrorModel"}}}}
}

// operationDoc returns the document's operation of o: its metadata,
// parameters, request body, success response and problem responses.
func (a *API) operationDoc(g *schemaGen, o *opDoc) *openapi.Operation {
	op := &openapi.Operation{
		OperationID: o.op.OperationID,
		Summary:     o.op.Summary,
		Description: o.op.Description,
		Tags:        o.op.Tags,
		Deprecated:  o.op.Deprecated,
		Security:    securityDoc(o.op.Security),
		Parameters:  parametersDoc(g, o.in.params),
		Responses: map[string]*openapi.Response{
			"400": problemResponse("Bad Request: malformed input."),
			"422": problemResponse("Unprocessable Entity: the input failed validation; errors lists every problem."),
			"500": problemResponse("Internal Server Error."),
		},
	}
	if bp := o.in.body; bp != nil {
		op.RequestBody = requestBodyDoc(g, bp)
		op.Responses["413"] = problemResponse("Content Too Large: the body is over the limit.")
		op.Responses["415"] = problemResponse("Unsupported Media Type.")
	}
	// A secured operation answers 401 to a caller without valid
	// credentials, and 403 to one whose credentials lack a scope or role
	// the requirement names.
	if secured, scoped := securityRefusals(o.op.Security); secured {
		op.Responses["401"] = problemResponse("Unauthorized: the credentials are missing or not valid.")
		if scoped {
			op.Responses["403"] = problemResponse("Forbidden: the credentials lack a scope or role the operation requires.")
		}
	}
	for _, code := range o.op.Errors {
		text := http.StatusText(code)
		if text == "" {
			text = "Error"
		}
		op.Responses[strconv.Itoa(code)] = problemResponse(text + ".")
	}
	status, resp := responseDoc(g, o)
	op.Responses[status] = resp
	return op
}

// securityRefusals reports whether an operation's security requirements
// name a scheme (secured: it can answer 401) and whether one of them names
// scopes or roles (scoped: it can answer 403). An empty requirement among
// them makes the credentials optional: not secured.
func securityRefusals(sec []map[string][]string) (secured, scoped bool) {
	for _, req := range sec {
		if len(req) == 0 {
			return false, false
		}
		for _, scopes := range req {
			scoped = scoped || len(scopes) > 0
		}
	}
	return len(sec) > 0, scoped
}

// securityDoc returns an operation's security requirements, with an empty
// scope list for each scheme that has none. nil stays nil (the document's
// default applies); an empty list stays empty (no security).
func securityDoc(sec []map[string][]string) []openapi.SecurityRequirement {
	if sec == nil {
		return nil
	}
	out := make([]openapi.SecurityRequirement, 0, len(sec))
	for _, req := range sec {
		m := openapi.SecurityRequirement{}
		for k, v := range req {
			if v == nil {
				v = []string{}
			}
			m[k] = v
		}
		out = append(out, m)
	}
	return out
}

// parametersDoc returns the parameters of an operation, with their
// schemas, defaults, descriptions and examples. An optional query
// parameter allows the empty value, which the binder takes as absent.
func parametersDoc(g *schemaGen, params []*param) []*openapi.Parameter {
	var out []*openapi.Parameter
	for _, p := range params {
		s := g.schema(p.field.Type, p.rules, false)
		if p.hasDef {
			s.Default = exampleValue(p.field.Type, p.def)
		}
		pd := &openapi.Parameter{Name: p.name, In: p.in, Schema: s, Required: p.required,
			AllowEmptyValue: !p.required && p.in == "query", Description: p.field.Tag.Get("doc")}
		if ex, ok := p.field.Tag.Lookup("example"); ok {
			pd.Example = exampleValue(p.field.Type, ex)
		}
		if p.in == "header" {
			pd.Name = p.key
		}
		out = append(out, pd)
	}
	return out
}

// requestBodyDoc returns the request body of an operation: JSON, or a form
// as multipart/form-data and (without files) urlencoded; required unless
// the Body is a pointer.
func requestBodyDoc(g *schemaGen, bp *bodyPlan) *openapi.RequestBody {
	s := g.schema(bp.schemaOf, bp.rules, bp.form)
	rb := &openapi.RequestBody{Content: map[string]*openapi.MediaType{}, Required: !bp.optional}
	if !bp.form {
		rb.Content["application/json"] = &openapi.MediaType{Schema: s}
		return rb
	}
	if !slices.ContainsFunc(bp.fields, func(f *formField) bool { return f.file != 0 }) {
		rb.Content["application/x-www-form-urlencoded"] = &openapi.MediaType{Schema: s}
	}
	rb.Content["multipart/form-data"] = &openapi.MediaType{Schema: s}
	return rb
}

// responseDoc returns the status and the success response of an
// operation: 204 for an empty Out, else the default status with the Out's
// headers and body (JSON, bytes, a reader or a string).
func responseDoc(g *schemaGen, o *opDoc) (string, *openapi.Response) {
	out := o.out
	if out.empty {
		return "204", &openapi.Response{Description: http.StatusText(http.StatusNoContent)}
	}
	status := o.op.DefaultStatus
	resp := &openapi.Response{Description: http.StatusText(status)}
	if resp.Description == "" {
		resp.Description = "Response"
	}
	if !out.structured {
		resp.Content = map[string]*openapi.MediaType{"application/json": {Schema: g.schema(out.typ, nil, false)}}
		return strconv.Itoa(status), resp
	}
	for _, h := range out.headers {
		if h.name == "Content-Type" {
			continue
		}
		if resp.Headers == nil {
			resp.Headers = map[string]*openapi.Header{}
		}
		resp.Headers[h.name] = &openapi.Header{Schema: g.schema(h.field.Type, nil, false), Description: h.field.Tag.Get("doc")}
	}
	if out.body != nil {
		ct, s := "application/json", (*openapi.Schema)(nil)
		switch out.bodyKind {
		case bodyBytes, bodyReader:
			ct, s = "application/octet-stream", &openapi.Schema{Type: "string", Format: "binary"}
		case bodyString:
			ct, s = "text/plain", &openapi.Schema{Type: "string"}
		default:
			s = g.schema(out.bodyType, nil, false)
		}
		if ex := out.body.Tag.Get("contentType"); ex != "" {
			ct = ex
		}
		resp.Content = map[string]*openapi.MediaType{ct: {Schema: s}}
	}
	return strconv.Itoa(status), resp
}

// JSON returns the document as indented JSON with sorted keys (see
// openapi.Document.JSON).
func (a *API) JSON() ([]byte, error) { return a.Document().JSON() }

// YAML returns the document as YAML (block style, strings double-quoted,
// keys sorted): the same content as JSON.
func (a *API) YAML() ([]byte, error) { return a.Document().YAML() }

// built returns the served JSON and YAML, built once.
func (a *API) built() ([]byte, []byte, error) {
	a.docOnce.Do(func() {
		doc := a.Document()
		a.docJSON, a.docErr = doc.JSON()
		if a.docErr == nil {
			a.docYAML, a.docErr = doc.YAML()
		}
	})
	return a.docJSON, a.docYAML, a.docErr
}

// serveDocument registers GET OpenAPIPath.json and .yaml, which serve the
// document built at their first request.
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
