// Package openapi is the typed model of an OpenAPI 3.1 document, as the api
// package generates it (api.API.Document), with its JSON and YAML
// encodings. It covers what the generator writes, not the whole
// specification.
//
// The encodings are deterministic: every struct declares its fields in the
// byte order of their JSON names, and encoding/json writes map keys sorted,
// so each object's members come out sorted (a test in this package holds
// the field order to that). Absent members are left out (omitempty or
// omitzero); a few are written even when empty because the specification
// or a client needs them (Document.Paths, Schema.Properties of an object
// without fields, an explicitly empty Operation.Security).
//
// The package depends on the standard library only.
package openapi

import (
	"bytes"
	"encoding/json"
)

// Version is the OpenAPI version that the model describes.
const Version = "3.1.0"

// Document is the root of an OpenAPI document.
type Document struct {
	Components *Components `json:"components,omitempty"`
	Info       Info        `json:"info"`
	OpenAPI    string      `json:"openapi"`
	// Paths maps a path template ("/items/{id}") to its operations. It is
	// always written, {} when empty, as the specification requires a paths
	// object (or webhooks) in a 3.1 document that describes an API.
	Paths   map[string]*PathItem `json:"paths"`
	Servers []Server             `json:"servers,omitempty"`
}

// Info is the document's metadata.
type Info struct {
	Description string `json:"description,omitempty"`
	Title       string `json:"title"`
	Version     string `json:"version"`
}

// Server is one entry of the document's servers list.
type Server struct {
	Description string `json:"description,omitempty"`
	URL         string `json:"url"`
}

// Components holds the schemas that operations reference by $ref, and the
// security schemes that their security requirements name.
type Components struct {
	Schemas         map[string]*Schema         `json:"schemas,omitempty"`
	SecuritySchemes map[string]*SecurityScheme `json:"securitySchemes,omitempty"`
}

// SecurityScheme is one entry of components.securitySchemes: for example
// {Type: "http", Scheme: "bearer", BearerFormat: "JWT"} or {Type: "apiKey",
// In: "header", Name: "X-API-Key"}.
type SecurityScheme struct {
	BearerFormat string `json:"bearerFormat,omitempty"` // http bearer: a hint such as "JWT"
	Description  string `json:"description,omitempty"`
	In           string `json:"in,omitempty"`   // apiKey: "header", "query" or "cookie"
	Name         string `json:"name,omitempty"` // apiKey: the header, query or cookie name
	// OpenIDConnectURL is the discovery URL of an openIdConnect scheme.
	OpenIDConnectURL string `json:"openIdConnectUrl,omitempty"`
	Scheme           string `json:"scheme,omitempty"` // http: "bearer", "basic", ...
	Type             string `json:"type"`             // "http", "apiKey", "oauth2", "openIdConnect", "mutualTLS"
}

// PathItem holds the operations of one path, by method.
type PathItem struct {
	Delete  *Operation `json:"delete,omitempty"`
	Get     *Operation `json:"get,omitempty"`
	Head    *Operation `json:"head,omitempty"`
	Options *Operation `json:"options,omitempty"`
	Patch   *Operation `json:"patch,omitempty"`
	Post    *Operation `json:"post,omitempty"`
	Put     *Operation `json:"put,omitempty"`
	Trace   *Operation `json:"trace,omitempty"`
}

// Method returns the field of p for an HTTP method in lower or upper case
// ("get", "POST"), so that it can be read or set; nil for a method that a
// path item has no field for (CONNECT, a custom method).
func (p *PathItem) Method(method string) **Operation {
	switch method {
	case "delete", "DELETE":
		return &p.Delete
	case "get", "GET":
		return &p.Get
	case "head", "HEAD":
		return &p.Head
	case "options", "OPTIONS":
		return &p.Options
	case "patch", "PATCH":
		return &p.Patch
	case "post", "POST":
		return &p.Post
	case "put", "PUT":
		return &p.Put
	case "trace", "TRACE":
		return &p.Trace
	}
	return nil
}

// Operation describes one method of a path.
type Operation struct {
	Deprecated  bool         `json:"deprecated,omitempty"`
	Description string       `json:"description,omitempty"`
	OperationID string       `json:"operationId,omitempty"`
	Parameters  []*Parameter `json:"parameters,omitempty"`
	RequestBody *RequestBody `json:"requestBody,omitempty"`
	// Responses maps a status code ("200", "422") or "default" to its
	// response.
	Responses map[string]*Response `json:"responses"`
	// Security lists alternative requirements, each naming security schemes
	// and their scopes. nil leaves the document's default; an empty,
	// non-nil list is written ([]) and means that no security applies.
	Security []SecurityRequirement `json:"security,omitzero"`
	Summary  string                `json:"summary,omitempty"`
	Tags     []string              `json:"tags,omitempty"`
}

// SecurityRequirement names security schemes and the scopes each needs
// (an empty, non-nil list for schemes without scopes).
type SecurityRequirement map[string][]string

// Parameter is a path, query, header or cookie parameter.
type Parameter struct {
	// AllowEmptyValue says that "?name=" is accepted (as absent).
	AllowEmptyValue bool    `json:"allowEmptyValue,omitempty"`
	Description     string  `json:"description,omitempty"`
	Example         any     `json:"example,omitempty"`
	In              string  `json:"in"` // "path", "query", "header" or "cookie"
	Name            string  `json:"name"`
	Required        bool    `json:"required,omitempty"`
	Schema          *Schema `json:"schema,omitempty"`
}

// RequestBody describes an operation's body, by media type.
type RequestBody struct {
	Content     map[string]*MediaType `json:"content"`
	Description string                `json:"description,omitempty"`
	Required    bool                  `json:"required,omitempty"`
}

// MediaType is the schema of a body of one media type.
type MediaType struct {
	Schema *Schema `json:"schema,omitempty"`
}

// Response describes one response of an operation.
type Response struct {
	Content     map[string]*MediaType `json:"content,omitempty"`
	Description string                `json:"description"`
	Headers     map[string]*Header    `json:"headers,omitempty"`
}

// Header describes a response header.
type Header struct {
	Description string  `json:"description,omitempty"`
	Schema      *Schema `json:"schema,omitempty"`
}

// Schema is a JSON Schema (draft 2020-12, as OpenAPI 3.1 uses), restricted
// to the keywords that the generator writes. The zero Schema is {}: any
// value. Values that JSON Schema leaves open (Const, Default, Enum,
// Examples) hold decoded JSON: a string, a number (int64, uint64, float64),
// a bool, or a list of those.
type Schema struct {
	Ref string `json:"$ref,omitempty"`
	// AdditionalProperties is the schema of the members that Properties
	// does not list; nil leaves them unconstrained. Use False for none.
	AdditionalProperties *Schema   `json:"additionalProperties,omitempty"`
	AllOf                []*Schema `json:"allOf,omitempty"`
	Const                any       `json:"const,omitempty"`
	ContentEncoding      string    `json:"contentEncoding,omitempty"`
	Default              any       `json:"default,omitempty"`
	Description          string    `json:"description,omitempty"`
	Enum                 []any     `json:"enum,omitempty"`
	Examples             []any     `json:"examples,omitempty"`
	ExclusiveMaximum     *float64  `json:"exclusiveMaximum,omitempty"`
	ExclusiveMinimum     *float64  `json:"exclusiveMinimum,omitempty"`
	Format               string    `json:"format,omitempty"`
	Items                *Schema   `json:"items,omitempty"`
	MaxItems             *int      `json:"maxItems,omitempty"`
	MaxLength            *int      `json:"maxLength,omitempty"`
	MaxProperties        *int      `json:"maxProperties,omitempty"`
	Maximum              *float64  `json:"maximum,omitempty"`
	MinItems             *int      `json:"minItems,omitempty"`
	MinLength            *int      `json:"minLength,omitempty"`
	MinProperties        *int      `json:"minProperties,omitempty"`
	Minimum              *float64  `json:"minimum,omitempty"`
	Not                  *Schema   `json:"not,omitempty"`
	Pattern              string    `json:"pattern,omitempty"`
	// Properties is written whenever it is non-nil, {} included: an object
	// schema without fields still says it has none.
	Properties map[string]*Schema `json:"properties,omitzero"`
	Required   []string           `json:"required,omitempty"`
	Type       string             `json:"type,omitempty"`

	// boolean marks the boolean schemas True and False, written as true and
	// false.
	boolean *bool
}

// The boolean schemas: True accepts any value, False none. They are written
// as the JSON literals true and false (additionalProperties: false).
var (
	True  = &Schema{boolean: ptr(true)}
	False = &Schema{boolean: ptr(false)}
)

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

// IsBool reports whether s is one of the boolean schemas, and which.
func (s *Schema) IsBool() (value, ok bool) {
	if s == nil || s.boolean == nil {
		return false, false
	}
	return *s.boolean, true
}

// MarshalJSON writes a boolean schema as true or false, and any other
// schema as an object of its keywords (HTML characters in patterns and
// descriptions are not escaped, as in Document.JSON).
func (s *Schema) MarshalJSON() ([]byte, error) {
	if s.boolean != nil {
		if *s.boolean {
			return []byte("true"), nil
		}
		return []byte("false"), nil
	}
	type keywords Schema // the fields without the methods
	return encode((*keywords)(s), "")
}

// UnmarshalJSON reads a schema object, or the boolean schemas true and
// false.
func (s *Schema) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "true":
		*s = Schema{boolean: ptr(true)}
		return nil
	case "false":
		*s = Schema{boolean: ptr(false)}
		return nil
	}
	type keywords Schema
	return json.Unmarshal(b, (*keywords)(s))
}
