package conformance

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestPlinthtestOnGeneratedDocument probes the schemas that the api
// package itself generates: Limits (every rule of the validate tag, nested
// structs, slices, maps) as an operation's output, and the problem of its
// 422 response. Each probe of the document-driven test (a value at a
// bound and past it, a wrong type, a member absent) is served as the
// response body; plinthtest must refuse exactly what the oracle refuses
// (but oracleDefects), at the probe's place.
func TestPlinthtestOnGeneratedDocument(t *testing.T) {
	app := plinth.New()
	a := api.New(app, api.Config{Title: "Limits out", Version: "1.0.0"})
	api.Register(a, api.Operation{Method: "GET", Path: "/limits", Errors: []int{404}},
		func(ctx context.Context, in *struct{}) (*Limits, error) { return &Limits{}, nil })
	j, err := a.JSON()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(j)
	if err != nil {
		t.Fatal(err)
	}
	formats := oracleFormats(t)
	g := &gen{t: t, opts: []openapi3.SchemaValidationOption{openapi3.EnableJSONSchema2020(), openapi3.WithStringFormatValidators(formats)}}
	op := doc.Paths.Find("/limits").Get
	// the probes cannot make a value of {} (any value): ErrorDetail.value
	// is left out of the probes' copy of the schema, not of the document
	delete(doc.Components.Schemas["ErrorDetail"].Value.Properties, "value")

	type served struct {
		probe
		status int
		ct     string
	}
	var all []served
	for _, r := range []struct {
		status int
		ct     string
	}{{200, "application/json"}, {422, "application/problem+json"}} {
		s := op.Responses.Status(r.status).Value.Content[r.ct].Schema.Value
		for _, p := range g.probes(s, "body") {
			all = append(all, served{p, r.status, r.ct})
		}
	}
	app.Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			i, err := strconv.Atoi(c.Query("probe"))
			if err != nil {
				return next(c)
			}
			return c.Bytes(all[i].status, all[i].ct, mustJSONBytes(t, all[i].value))
		}
	})

	oracleDoc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(j)))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.AssertFormat()
	if err := comp.AddResource("doc.json", oracleDoc); err != nil {
		t.Fatal(err)
	}
	schemas := map[int]*jsonschema.Schema{}
	for status, ct := range map[int]string{200: "application~1json", 422: "application~1problem+json"} {
		if schemas[status], err = comp.Compile("doc.json#/paths/~1limits/get/responses/" + strconv.Itoa(status) + "/content/" + ct + "/schema"); err != nil {
			t.Fatal(err)
		}
	}

	tb := &captureTB{}
	client := plinthtest.New(tb, app, plinthtest.Config{})
	refused, located := 0, 0
	for i, s := range all {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(mustJSONBytes(t, s.value))))
		if err != nil {
			t.Fatal(err)
		}
		oerr := schemas[s.status].Validate(inst)
		want := oerr == nil
		msg := tb.run(func(tb testing.TB) { client.Get("/limits?probe=" + strconv.Itoa(i)) })
		got := msg == ""
		if got != want {
			if reason, known := oracleDefects[mustJSON(s.leaf)]; known && !got {
				t.Logf("%s at %s = %s: plinthtest refuses, the oracle accepts: %s", s.rule, s.where, show(s.probe), reason)
				continue
			}
			t.Errorf("%d %s at %s = %s: plinthtest %s, the oracle %s\n  plinthtest: %s\n  oracle: %v",
				s.status, s.rule, s.where, show(s.probe), verdict(got), verdict(want), firstLine(msg), oneLine(errString(oerr)))
			continue
		}
		if got {
			continue
		}
		refused++
		loc, ok := checkedLocation(msg)
		wantLoc := strings.TrimPrefix(s.where, "body")
		if !ok || loc != wantLoc && !(s.rule == "maxProperties" || s.rule == "maxItems" || s.rule == "minItems") {
			t.Errorf("%d %s at %s = %s: plinthtest says $%s, want $%s: %s", s.status, s.rule, s.where, show(s.probe), loc, wantLoc, firstLine(msg))
			continue
		}
		located++
	}
	if len(all) < 150 || refused < 60 {
		t.Errorf("%d probes, %d refused: the probes lost their reach", len(all), refused)
	}
	t.Logf("%d probes of the generated document: %d refused by both, %d of them at the probe's place", len(all), refused, located)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
