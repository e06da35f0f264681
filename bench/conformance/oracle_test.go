package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The API of the document-driven test: its body and parameters carry every
// rule of the validate tag, on values, on the elements of slices, and in
// nested structs (by value, by pointer, in slices).

type Zone struct {
	Zip  string `json:"zip" validate:"required,pattern=^[0-9]{5}$"`
	City string `json:"city,omitempty" validate:"maxLength=10"`
}

type Member struct {
	Name string `json:"name" validate:"required,maxLength=8"`
	Age  int    `json:"age,omitempty" validate:"max=130"`
	Mail string `json:"mail,omitempty" validate:"format=email"`
}

type Limits struct {
	Req      string            `json:"req" validate:"required"`
	Short    string            `json:"short,omitempty" validate:"minLength=2,maxLength=5"`
	Pat      string            `json:"pat,omitempty" validate:"pattern=^[a-z]{2,4}[0-9]$"`
	Color    string            `json:"color,omitempty" validate:"enum=red|green|blue"`
	Email    string            `json:"email,omitempty" validate:"format=email"`
	UUID     string            `json:"uuid,omitempty" validate:"format=uuid"`
	URI      string            `json:"uri,omitempty" validate:"format=uri"`
	URL      string            `json:"url,omitempty" validate:"format=url"`
	DateTime string            `json:"dateTime,omitempty" validate:"format=date-time"`
	Date     string            `json:"date,omitempty" validate:"format=date"`
	IPv4     string            `json:"ipv4,omitempty" validate:"format=ipv4"`
	IPv6     string            `json:"ipv6,omitempty" validate:"format=ipv6"`
	Note     *string           `json:"note,omitempty" validate:"minLength=1,maxLength=3"`
	Qty      int               `json:"qty" validate:"min=1,max=100"`
	Opt      *int              `json:"opt,omitempty" validate:"min=-5,max=5"`
	Ratio    *float64          `json:"ratio,omitempty" validate:"exclusiveMin=0,exclusiveMax=1"`
	Level    *int              `json:"level,omitempty" validate:"enum=1|2|3"`
	Count    int               `json:"count" validate:"required"`
	Agree    bool              `json:"agree" validate:"required"`
	Small    uint8             `json:"small,omitempty"`
	Tiny     int8              `json:"tiny,omitempty" validate:"min=-10"`
	Tags     []string          `json:"tags,omitempty" validate:"maxItems=3,minLength=2,maxLength=4,pattern=^[a-z]+$"`
	Picks    []string          `json:"picks,omitempty" validate:"minItems=2,enum=a|b|c"`
	Mails    []string          `json:"mails,omitempty" validate:"format=email"`
	Links    []string          `json:"links,omitempty" validate:"maxItems=2,format=url"`
	Nums     []int             `json:"nums,omitempty" validate:"min=1,max=9"`
	Grid     [][]string        `json:"grid,omitempty" validate:"minLength=1"`
	Home     Zone              `json:"home"`
	Work     *Zone             `json:"work,omitempty"`
	Team     []Member          `json:"team,omitempty" validate:"maxItems=2"`
	Meta     map[string]string `json:"meta,omitempty" validate:"maxItems=2"`
}

type limitsIn struct {
	ID    int      `path:"id" validate:"min=1,max=1000"`
	Limit int      `query:"limit" default:"10" validate:"min=1,max=50"`
	Page  int      `query:"page" validate:"min=1"`
	Q     string   `query:"q" validate:"minLength=2,maxLength=6"`
	Sort  string   `query:"sort" validate:"enum=asc|desc"`
	Mail  string   `query:"mail" validate:"format=email"`
	Site  string   `query:"site" validate:"format=url"`
	Tags  []string `query:"tag" validate:"maxItems=2,minLength=2"`
	Nums  []int    `query:"n" validate:"min=0,max=3"`
	Ratio *float64 `query:"ratio" validate:"min=0,max=1"`
	Small uint8    `query:"small"`
	Body  Limits
}

func limitsAPI() (*plinth.App, *api.API) {
	app := plinth.New()
	a := api.New(app, api.Config{Title: "Limits", Version: "1.0.0"})
	api.Register(a, api.Operation{Method: "POST", Path: "/limits/{id}"},
		func(ctx context.Context, in *limitsIn) (*struct{}, error) { return nil, nil })
	return app, a
}

// oracleFormats are the string formats of the oracle, from an independent
// JSON Schema implementation (santhosh-tekuri/jsonschema, which kin-openapi
// uses for OpenAPI 3.1): kin-openapi itself checks only date and date-time
// by default.
func oracleFormats(t *testing.T) map[string]openapi3.StringFormatValidator {
	out := map[string]openapi3.StringFormatValidator{}
	for _, f := range []string{"email", "uuid", "uri", "date-time", "date", "ipv4", "ipv6"} {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		if err := c.AddResource("format.json", map[string]any{"format": f}); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile("format.json")
		if err != nil {
			t.Fatal(err)
		}
		out[f] = openapi3.NewCallbackValidator(func(s string) error { return sch.Validate(s) })
	}
	return out
}

// probe is one value at one place, sent to probe one rule.
type probe struct {
	rule   string // the keyword probed: minLength, pattern, required, type, ...
	where  string // body.tags[0], query.q, path.id
	value  any    // the JSON value sent in place of the probed one's parent
	leaf   any    // the probed value itself
	absent bool
}

// request is what a probe sends: the path parameter, the query and the body.
type request struct {
	id    string
	query url.Values
	body  any
}

func (r request) http(t *testing.T) *http.Request {
	b, err := json.Marshal(r.body)
	if err != nil {
		t.Fatal(err)
	}
	u := "/limits/" + url.PathEscape(r.id)
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	req := httptest.NewRequest("POST", u, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	return req
}

// gen makes probes from the document's schemas.
type gen struct {
	t    *testing.T
	opts []openapi3.SchemaValidationOption
}

// TestDocumentDrivenBoundaries reads the document of limitsAPI and, for
// every rule it states (on the path and query parameters, the body's
// members, the elements of its arrays and its nested objects), sends values
// exactly at the bound and one past it, on each side, to the server. The
// oracle is kin-openapi's request validation against the same document
// (with formats from an independent JSON Schema library): the server must
// answer 2xx exactly when the document accepts the request, and 422 (or 400
// for malformed input) when it refuses it.
func TestDocumentDrivenBoundaries(t *testing.T) {
	app, a := limitsAPI()
	j, err := a.JSON()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	doc, err := openapi3.NewLoader().LoadFromData(j)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(ctx, openapi3.EnableSchemaPatternValidation()); err != nil {
		t.Fatal(err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	formats := oracleFormats(t)
	g := &gen{t: t, opts: []openapi3.SchemaValidationOption{openapi3.EnableJSONSchema2020(), openapi3.WithStringFormatValidators(formats)}}
	oracle := func(req *http.Request) (bool, string) {
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Fatalf("route: %v", err)
		}
		err = openapi3filter.ValidateRequest(ctx, &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, SkipSettingDefaults: true,
				SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.WithStringFormatValidators(formats)}}})
		if err != nil {
			return false, oneLine(err.Error())
		}
		return true, ""
	}
	server := func(req *http.Request) (int, string) {
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	var _ routers.Router = router

	op := doc.Paths.Find("/limits/{id}").Post
	bodySchema := op.RequestBody.Value.Content["application/json"].Schema.Value

	// The base request: every required parameter and a body of the required
	// members, each with a value the document accepts.
	base := request{query: url.Values{}}
	params := map[string]*openapi3.Parameter{}
	var names []string
	for _, pr := range op.Parameters {
		p := pr.Value
		params[p.Name] = p
		names = append(names, p.Name)
		if p.In == "path" {
			base.id = paramStrings(g.valid(p.Schema.Value, "path."+p.Name))[0]
		} else if p.Required {
			base.query[p.Name] = paramStrings(g.valid(p.Schema.Value, "query."+p.Name))
		}
	}
	sort.Strings(names)
	base.body = g.valid(bodySchema, "body")

	type sent struct {
		probe
		req request
	}
	var all []sent
	for _, name := range names {
		p := params[name]
		loc := p.In + "." + name
		var ps []probe
		if p.In == "query" {
			v := g.valid(p.Schema.Value, loc)
			ps = append(ps, probe{rule: "required", where: loc, absent: true},
				probe{rule: "required", where: loc, value: v, leaf: v},
				probe{rule: "allowEmptyValue", where: loc, value: "", leaf: ""})
		}
		ps = append(ps, probe{rule: "type", where: loc, value: "x!", leaf: "x!"})
		ps = append(ps, g.probes(p.Schema.Value, loc)...)
		for _, pb := range ps {
			r := base
			r.query = cloneValues(base.query)
			switch {
			case p.In == "path":
				r.id = paramStrings(pb.value)[0]
			case pb.absent:
				delete(r.query, name)
			default:
				r.query[name] = paramStrings(pb.value)
			}
			all = append(all, sent{pb, r})
		}
	}
	for _, pb := range g.probes(bodySchema, "body") {
		r := base
		r.body = pb.value
		all = append(all, sent{pb, r})
	}

	// Both verdicts for every probe; every bounding rule seen on both sides.
	type sides struct{ accepted, refused int }
	seen := map[string]*sides{}
	for _, s := range all {
		want, why := oracle(s.req.http(t))
		code, got := server(s.req.http(t))
		ok := code >= 200 && code < 300
		if !ok && code != 422 && code != 400 {
			t.Errorf("%s at %s = %s: server answered %d: %.300s", s.rule, s.where, show(s.probe), code, got)
			continue
		}
		if reason, known := oracleDefects[mustJSON(s.leaf)]; ok != want && known && !ok {
			t.Logf("%s at %s = %s: the server refuses, the oracle accepts: %s", s.rule, s.where, show(s.probe), reason)
			continue
		}
		if ok != want {
			t.Errorf("%s at %s = %s: server %d (%s), document %s (%s)\n  body %s\n  query %s",
				s.rule, s.where, show(s.probe), code, verdict(ok), verdict(want), why, mustJSON(s.req.body), s.req.query.Encode())
		}
		key := s.where + " " + s.rule
		if seen[key] == nil {
			seen[key] = &sides{}
		}
		if want {
			seen[key].accepted++
		} else {
			seen[key].refused++
		}
	}
	bounding := map[string]bool{"minLength": true, "maxLength": true, "pattern": true, "enum": true, "format": true,
		"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "minItems": true,
		"maxItems": true, "maxProperties": true, "not": true, "const": true}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rules := 0
	for _, k := range keys {
		_, rule, _ := strings.Cut(k, " ")
		if s := seen[k]; bounding[rule] {
			rules++
			if s.accepted == 0 || s.refused == 0 {
				t.Errorf("%s: the probes did not straddle the bound (%d accepted, %d refused)", k, s.accepted, s.refused)
			}
		}
	}
	// The probes must reach the rules this test is about.
	for _, k := range []string{"body.tags[0] minLength", "body.tags[0] maxLength", "body.tags[0] pattern", "body.picks[0] enum",
		"body.mails[0] format", "body.nums[0] minimum", "body.grid[0][0] minLength", "body.team[0].name maxLength",
		"body.home.zip pattern", "body.work.zip pattern", "body.url pattern", "body.url format", "body.links[0] pattern",
		"body.count not", "body.agree const", "body.small maximum", "body.tiny minimum", "body.meta maxProperties",
		"body.ratio exclusiveMinimum", "body.ratio exclusiveMaximum", "body.picks minItems", "body.links maxItems",
		"query.tag[0] minLength", "query.n[0] maximum", "query.site pattern", "query.limit maximum", "path.id minimum",
		"body.req required", "body.qty required", "body.home required", "query.page required"} {
		if seen[k] == nil {
			t.Errorf("no probe of %s", k)
		}
	}
	var js bool
	for _, s := range all {
		js = js || s.where == "body.url" && s.leaf == "javascript:alert(1)"
	}
	if !js {
		t.Errorf("javascript:alert(1) was not sent as a url")
	}
	t.Logf("%d requests, %d bounded rules on both sides", len(all), rules)
}

// oracleDefects are values that the oracle accepts against the document's
// own meaning; the server must refuse them (the test checks that much), and
// the disagreement is logged rather than failed, with the reason.
var oracleDefects = map[string]string{
	`"@example.com"`:       "santhosh-tekuri/jsonschema v6.0.3 accepts an email address with an empty local part, which RFC 5321 requires",
	`10000000000000000000`: "kin-openapi v0.153.0 checks format int64 with int64(value), which wraps for a value past the int64 range",
}

func verdict(ok bool) string {
	if ok {
		return "accepts"
	}
	return "refuses"
}

func show(p probe) string {
	if p.absent {
		return "(absent)"
	}
	s := mustJSON(p.leaf)
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return s
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// paramStrings writes a JSON value as query values: one per element of an
// array.
func paramStrings(v any) []string {
	if list, ok := v.([]any); ok {
		var out []string
		for _, e := range list {
			out = append(out, paramStrings(e)...)
		}
		return out
	}
	switch x := v.(type) {
	case string:
		return []string{x}
	case float64:
		return []string{strconv.FormatFloat(x, 'f', -1, 64)}
	case bool:
		return []string{strconv.FormatBool(x)}
	}
	return []string{mustJSON(v)}
}

// accepts reports whether the document's schema s accepts v.
func (g *gen) accepts(s *openapi3.Schema, v any) bool {
	return s.VisitJSON(v, g.opts...) == nil
}

// valid returns a value that s accepts: for an object its required
// members, for an array its fewest items, for a scalar the first of its
// probes that s accepts.
func (g *gen) valid(s *openapi3.Schema, where string) any {
	switch {
	case s.Type.Is("object"):
		m := map[string]any{}
		for _, name := range s.Required {
			m[name] = g.valid(s.Properties[name].Value, where+"."+name)
		}
		return m
	case s.Type.Is("array"):
		list := []any{}
		for i := uint64(0); i < s.MinItems; i++ {
			list = append(list, g.valid(s.Items.Value, where+"[0]"))
		}
		return list
	}
	for _, p := range g.scalarProbes(s, where) {
		if g.accepts(s, p.value) {
			return p.value
		}
	}
	g.t.Fatalf("%s: no probe value is valid for %s", where, mustJSON(s))
	return nil
}

// probes returns values of s at where, each probing one rule the schema
// states: for a member or an element, the enclosing object or array with
// that value in place.
func (g *gen) probes(s *openapi3.Schema, where string) []probe {
	switch {
	case s.Type.Is("object"):
		return g.objectProbes(s, where)
	case s.Type.Is("array"):
		return g.arrayProbes(s, where)
	}
	return g.scalarProbes(s, where)
}

func (g *gen) objectProbes(s *openapi3.Schema, where string) []probe {
	base := g.valid(s, where).(map[string]any)
	with := func(name string, v any, absent bool) map[string]any {
		m := make(map[string]any, len(base)+1)
		for k, x := range base {
			m[k] = x
		}
		if absent {
			delete(m, name)
		} else {
			m[name] = v
		}
		return m
	}
	var out []probe
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ps := s.Properties[name].Value
		loc := where + "." + name
		v, wrong := g.valid(ps, loc), wrongType(ps)
		out = append(out,
			probe{rule: "required", where: loc, value: with(name, nil, true), absent: true},
			probe{rule: "required", where: loc, value: with(name, v, false), leaf: v},
			probe{rule: "type", where: loc, value: with(name, wrong, false), leaf: wrong})
		for _, p := range g.probes(ps, loc) {
			out = append(out, probe{rule: p.rule, where: p.where, value: with(name, p.value, false), leaf: p.leaf, absent: p.absent})
		}
	}
	if ap := s.AdditionalProperties; ap.Has != nil && !*ap.Has {
		out = append(out, probe{rule: "additionalProperties", where: where + ".zz_unknown", value: with("zz_unknown", 1, false), leaf: 1})
	}
	if s.MaxProps != nil {
		for _, n := range []uint64{*s.MaxProps, *s.MaxProps + 1} {
			m := map[string]any{}
			for i := uint64(0); i < n; i++ {
				m["k"+strconv.FormatUint(i, 10)] = "v"
			}
			out = append(out, probe{rule: "maxProperties", where: where, value: m, leaf: m})
		}
	}
	return out
}

func (g *gen) arrayProbes(s *openapi3.Schema, where string) []probe {
	item := s.Items.Value
	valid := g.valid(item, where+"[0]")
	list := func(first any, n uint64) []any {
		out := []any{}
		for i := uint64(0); i < n; i++ {
			if i == 0 && first != nil {
				out = append(out, first)
			} else {
				out = append(out, valid)
			}
		}
		return out
	}
	var out []probe
	sized := func(rule string, n uint64) {
		l := list(nil, n)
		out = append(out, probe{rule: rule, where: where, value: l, leaf: l})
	}
	if s.MinItems > 0 {
		sized("minItems", s.MinItems-1)
		sized("minItems", s.MinItems)
	}
	if s.MaxItems != nil {
		sized("maxItems", *s.MaxItems)
		sized("maxItems", *s.MaxItems+1)
	}
	n := max(s.MinItems, 1)
	wrong := wrongType(item)
	out = append(out, probe{rule: "type", where: where + "[0]", value: list(wrong, n), leaf: wrong})
	for _, p := range g.probes(item, where+"[0]") {
		out = append(out, probe{rule: p.rule, where: p.where, value: list(p.value, n), leaf: p.leaf})
	}
	return out
}

// formatSamples are well-formed and malformed values of each format, the
// malformed ones close to well-formed.
var formatSamples = map[string][]string{
	"email": {"ada@example.com", "a@b", "first.last+tag@sub.example.org", "nope", "ada@", "@example.com", "a b@example.com",
		"ada@exa mple.com", "ada@@example.com", "ada@-example.com"},
	"uuid": {"123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-12d3-a456-42661417400",
		"123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g", "{123e4567-e89b-12d3-a456-426614174000}"},
	"uri": {"https://example.com/a?b#c", "mailto:ada@example.com", "urn:isbn:0451450523", "javascript:alert(1)", "/relative/path",
		"example.com", "//example.com/x", "http://[::1]:80/", "http://[::1/", "http://exa mple.com/",
		// what format=url adds: http(s), a host, no user info
		"http://example.com", "https://example.com:8443/x", "ftp://example.com/", "http://", "http:///x", "HTTPS://example.com/",
		"https://user@example.com/", "https://user:pw@example.com/", "https://:80/", "data:text/html,<script>alert(1)</script>",
		"https://[::1]/", "https://example.com?q", "https://example.com#f"},
	"date-time": {"2024-05-01T10:00:00Z", "2024-05-01T10:00:00.123+02:00", "2024-05-01 10:00:00Z", "2024-13-01T10:00:00Z",
		"2024-05-01T25:00:00Z", "2024-05-01", "2024-05-01T10:00:00"},
	"date": {"2024-05-01", "2024-02-29", "2023-02-29", "2024-5-1", "2024-05-01T00:00:00Z", "2024-00-10"},
	"ipv4": {"192.0.2.1", "0.0.0.0", "255.255.255.255", "256.0.0.1", "1.2.3", "01.2.3.4", "::1", "1.2.3.4.5"},
	"ipv6": {"2001:db8::1", "::1", "::", "::ffff:192.0.2.1", "2001:db8::g", "192.0.2.1", "fe80::1%eth0", "1:2:3:4:5:6:7:8:9"},
}

// scalarProbes returns the values that probe the rules of a string, number
// or boolean schema.
func (g *gen) scalarProbes(s *openapi3.Schema, where string) []probe {
	var out []probe
	add := func(rule string, vs ...any) {
		for _, v := range vs {
			out = append(out, probe{rule: rule, where: where, value: v, leaf: v})
		}
	}
	switch {
	case s.Type.Is("string"):
		fill := "a"
		for _, e := range s.Enum {
			if str, ok := e.(string); ok && str != "" {
				fill = str[:1]
				break
			}
		}
		if s.Pattern != "" {
			if m, ok := genRegex(s.Pattern, repMin); ok && m != "" {
				r, _ := utf8.DecodeRuneInString(m)
				fill = string(r)
			}
		}
		for _, e := range s.Enum {
			str, _ := e.(string)
			add("enum", str, str+"x", strings.ToUpper(str))
		}
		if len(s.Enum) > 0 {
			add("enum", "")
		}
		if s.Format != "" {
			for _, v := range formatSamples[s.Format] {
				add("format", v)
			}
			add("format", "")
		}
		if s.Pattern != "" {
			for _, mode := range []int{repMin, repMax, repOver, repUnder} {
				if m, ok := genRegex(s.Pattern, mode); ok {
					add("pattern", m, m+"!", "!"+m)
				}
			}
			add("pattern", "")
		}
		// A value inside the length bounds that the other rules accept too
		// (a pattern may allow no value right at a length bound).
		var inside []any
		for _, p := range out {
			if str, ok := p.value.(string); ok && utf8.RuneCountInString(str) >= int(s.MinLength) && g.accepts(s, str) {
				inside = append(inside, str)
				break
			}
		}
		if s.MinLength > 0 {
			n := int(s.MinLength)
			add("minLength", inside...)
			add("minLength", strings.Repeat(fill, n-1), strings.Repeat(fill, n), strings.Repeat("é", n-1), strings.Repeat("é", n))
		}
		if s.MaxLength != nil {
			n := int(*s.MaxLength)
			add("maxLength", inside...)
			add("maxLength", strings.Repeat(fill, n), strings.Repeat(fill, n+1), strings.Repeat("é", n), strings.Repeat("é", n+1))
		}
		add("type", "abc", fill)
	case s.Type.Is("integer") || s.Type.Is("number"):
		step := 1.0
		if s.Type.Is("number") {
			step = 0.25
		}
		if s.Min != nil {
			add("minimum", *s.Min-step, *s.Min, *s.Min+step)
		}
		if s.Max != nil {
			add("maximum", *s.Max-step, *s.Max, *s.Max+step)
		}
		if v := s.ExclusiveMin.Value; v != nil {
			add("exclusiveMinimum", *v-step, *v, *v+step)
		}
		if v := s.ExclusiveMax.Value; v != nil {
			add("exclusiveMaximum", *v-step, *v, *v+step)
		}
		for _, e := range s.Enum {
			f, _ := e.(float64)
			add("enum", f, f+step)
		}
		if s.Not != nil {
			add("not", 0.0, 1.0, -1.0)
		}
		if s.Type.Is("integer") {
			add("type", 2.5, 1e19) // 1e19: past int64
		}
		add("type", 1.0, 0.0, 7.0)
	case s.Type.Is("boolean"):
		if s.Const != nil {
			add("const", true, false)
		}
		add("type", true, false)
	}
	return out
}

// wrongType returns a value of another JSON type than s's.
func wrongType(s *openapi3.Schema) any {
	if s.Type.Is("string") {
		return 12345.0
	}
	if s.Type.Is("object") {
		return []any{"x"}
	}
	return "x!"
}

// Repetition choices of genRegex: the fewest repetitions, the most (or two
// more than the fewest when unbounded), one more than the most allowed, one
// fewer than the fewest required.
const (
	repMin = iota
	repMax
	repOver
	repUnder
)

// genRegex returns a string that the pattern (RE2 syntax) matches when mode
// is repMin or repMax, and one at the edge of its repetitions otherwise.
func genRegex(pattern string, mode int) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !genNode(&b, re, mode) {
		return "", false
	}
	return b.String(), true
}

func genNode(b *strings.Builder, re *syntax.Regexp, mode int) bool {
	repeat := func(sub *syntax.Regexp, lo, hi int) bool {
		n := lo
		switch mode {
		case repMax:
			n = hi
			if hi < 0 {
				n = lo + 2
			}
		case repOver:
			n = hi + 1
			if hi < 0 {
				n = lo + 3
			}
		case repUnder:
			n = max(lo-1, 0)
		}
		for i := 0; i < n; i++ {
			if !genNode(b, sub, repMin) {
				return false
			}
		}
		return true
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(pickRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		return genNode(b, re.Sub[0], mode)
	case syntax.OpStar:
		return repeat(re.Sub[0], 0, -1)
	case syntax.OpPlus:
		return repeat(re.Sub[0], 1, -1)
	case syntax.OpQuest:
		return repeat(re.Sub[0], 0, 1)
	case syntax.OpRepeat:
		return repeat(re.Sub[0], re.Min, re.Max)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !genNode(b, s, mode) {
				return false
			}
		}
	case syntax.OpAlternate:
		if mode == repMax {
			return genNode(b, re.Sub[len(re.Sub)-1], mode)
		}
		return genNode(b, re.Sub[0], mode)
	}
	return true // anchors, boundaries, empty
}

// pickRune returns a rune of the class (pairs of range bounds), preferring
// a lowercase letter, a digit, an uppercase letter, printable ASCII.
func pickRune(ranges []rune) rune {
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if r >= ranges[i] && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	for _, r := range "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.~!$&'()*+,;=" {
		if in(r) {
			return r
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'a'
}

var _ = fmt.Sprint
