package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

// base is embedded in shapes: its fields are promoted, and Name is hidden
// by shapes' own.
type base struct {
	Name string `json:"name" validate:"maxLength=1"`
	Kind string `json:"kind,omitempty" validate:"enum=a|b"`
}

type shapes struct {
	base
	Name    string            `json:"name" validate:"required,maxLength=5"`
	secret  string            `validate:"required"` // unexported: encoding/json ignores it, so does the validator
	Meta    map[string]string `json:"meta,omitempty" validate:"maxItems=1"`
	Pair    [2]int            `json:"pair" validate:"max=9"`
	Any     any               `json:"any" validate:"required"`
	When    time.Time         `json:"when" validate:"required"`
	Ptr     *int              `json:"ptr" validate:"required"`
	Raw     json.RawMessage   `json:"raw,omitempty"`
	Blob    []byte            `json:"blob,omitempty" validate:"maxItems=3"`
	Color   *color            `json:"color,omitempty"`
	Keys    map[int]string    `json:"keys,omitempty"`
	Count   uint16            `json:"count,omitempty" validate:"max=10"`
	Ratio   float32           `json:"ratio,omitempty" validate:"max=0.5"`
	Day     string            `json:"day,omitempty" validate:"format=date"`
	IPv4    string            `json:"ipv4,omitempty" validate:"format=ipv4"`
	IPv6    string            `json:"ipv6,omitempty" validate:"format=ipv6"`
	Site    string            `json:"site,omitempty" validate:"format=uri"`
	Strict  int               `json:"strict,omitempty,string"`
	Mail    string            `json:"mail,omitempty" validate:"format=email"`
	Stamp   string            `json:"stamp,omitempty" validate:"format=date-time"`
	Website string            `json:"website,omitempty" validate:"format=url"`
}

func (c *color) MarshalText() ([]byte, error) { return []byte("#000000"), nil }

// hooked returns the error its Fail field names from its Validate hook.
type hooked struct {
	Fail string `json:"fail"`
}

func (h *hooked) Validate(context.Context) error {
	switch h.Fail {
	case "list":
		return api.FieldErrors{{Location: "body.a", Message: "bad a"}, {Location: "body.b", Message: "bad b"}}
	case "wrapped":
		return errors.Join(errors.New("context"), &api.FieldError{Location: "body.fail", Message: "wrapped"})
	case "problem":
		return plinth.Conflict("taken")
	case "plain":
		return errors.New("the numbers do not add up")
	}
	return nil
}

func bodyApp() *plinth.App {
	app := plinth.Bare()
	a := api.New(app, api.Config{})
	api.Register(a, api.Operation{Method: "POST", Path: "/shapes", DefaultStatus: 200}, func(_ context.Context, in *struct{ Body shapes }) (*shapes, error) {
		if in.Body.secret != "" {
			return nil, errors.New("an unexported field was bound")
		}
		return &in.Body, nil
	})
	api.Register(a, api.Operation{Method: "POST", Path: "/hooked"}, func(context.Context, *struct{ Body hooked }) (*struct{}, error) {
		return nil, nil
	})
	return app
}

func TestBodyShapes(t *testing.T) {
	app := bodyApp()
	const valid = `"name":"Ada","any":1,"when":"2024-05-01T10:00:00Z","ptr":0`
	rows := []struct {
		name, body string
		status     int
		wants      []want
	}{
		{"valid", `{` + valid + `,"kind":"a","meta":{"a":"b"},"pair":[1,2],"raw":[1],"blob":"AQI=","color":"#ff0000","keys":{"1":"x"},"count":10,"ratio":0.5,"day":"2024-05-01","ipv4":"10.0.0.1","ipv6":"::1","site":"http://[::1]:80/x","strict":"3","mail":"a@b.example","stamp":"2024-05-01T10:00:00.5+02:00","website":"https://example.com"}`, 200, nil},
		{"required of each kind", `{"name":"Ada","when":"0001-01-01T00:00:00Z"}`, 422, []want{
			{"body.any", "is required", nil}, {"body.when", "is required", nil}, {"body.ptr", "is required", nil}}},
		{"shadowed and promoted fields", `{` + valid + `,"name":"Adalbert","kind":"c"}`, 422, []want{
			{"body.kind", "must be one of: a, b", "c"}, {"body.name", "at most 5 characters", "Adalbert"}}},
		{"unexported field is unknown", `{` + valid + `,"secret":"x"}`, 422, []want{{"body.secret", "is not an allowed field", nil}}},
		{"map, array, bytes, numbers", `{` + valid + `,"meta":{"a":"1","b":"2"},"pair":[1,10],"blob":"AQIDBA==","count":11,"ratio":0.75}`, 422, []want{
			{"body.meta", "at most 1 items", nil}, {"body.pair[1]", "at most 9", 10.0}, {"body.blob", "at most 3 items", nil},
			{"body.count", "at most 10", 11.0}, {"body.ratio", "at most 0.5", 0.75}}},
		{"wrong types", `{` + valid + `,"color":"red","blob":"!!","pair":{"a":1},"meta":[1],"any":{"x":1}}`, 422, []want{
			{"body.pair", "must be an array", `{"a":1}`}, {"body.blob", "must be a base64 string", "!!"},
			{"body.color", "must be a valid value", "red"}, {"body.meta", "must be an object", "[1]"}}},
		{"text type given a number", `{` + valid + `,"color":5}`, 422, []want{{"body.color", "must be a valid value", 5.0}}},
		{"map key of the wrong type", `{` + valid + `,"keys":{"x":"y"}}`, 422, []want{{"body.keys", "must be an integer", nil}}},
		{"formats", `{` + valid + `,"day":"2024-13-01","ipv4":"::1","ipv6":"10.0.0.1","site":"http://::1/","mail":"a@-b.example","stamp":"2024-05-01","website":"ftp://example.com"}`, 422, []want{
			{"body.day", "valid date", "2024-13-01"}, {"body.ipv4", "valid ipv4", "::1"}, {"body.ipv6", "valid ipv6", "10.0.0.1"},
			{"body.site", "valid uri", "http://::1/"}, {"body.mail", "valid email", "a@-b.example"},
			{"body.stamp", "valid date-time", "2024-05-01"}, {"body.website", "valid url", "ftp://example.com"}}},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			status, p, raw := send(t, app, "POST", "/shapes", "application/json", tc.body)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, raw)
			}
			checkErrors(t, p, tc.wants, raw)
		})
	}
	// ",string" with a value that is not a quoted number: encoding/json's
	// own error, a 400.
	if status, _, raw := send(t, app, "POST", "/shapes", "application/json", `{`+valid+`,"strict":3}`); status != 400 {
		t.Errorf(",string: %d %s", status, raw)
	}
}

// checkErrors compares a problem's errors with wants, in any order.
func checkErrors(t *testing.T, p problem, wants []want, raw string) {
	t.Helper()
	if len(p.Errors) != len(wants) {
		t.Errorf("%d errors, want %d: %s", len(p.Errors), len(wants), raw)
	}
	for _, w := range wants {
		found := false
		for _, e := range p.Errors {
			if e.Location == w.loc && strings.Contains(e.Message, w.msg) {
				found = true
				if g, wv := mustJSON(e.Value), mustJSON(w.value); g != wv {
					t.Errorf("%s: value %s, want %s", w.loc, g, wv)
				}
			}
		}
		if !found {
			t.Errorf("no %s %q: %s", w.loc, w.msg, raw)
		}
	}
}

func TestValidateHook(t *testing.T) {
	app := bodyApp()
	rows := []struct {
		fail     string
		status   int
		contains []string
	}{
		{"", 204, nil},
		{"list", 422, []string{`"location":"body.a"`, `"location":"body.b"`}},
		{"wrapped", 422, []string{`"location":"body.fail"`, `"message":"wrapped"`}},
		{"problem", 409, []string{"taken"}},
		{"plain", 422, []string{`"detail":"the numbers do not add up"`, `"errors":[]`}},
	}
	for _, tc := range rows {
		status, _, raw := send(t, app, "POST", "/hooked", "application/json", `{"fail":"`+tc.fail+`"}`)
		if status != tc.status {
			t.Errorf("%q: status %d, want %d: %s", tc.fail, status, tc.status, raw)
		}
		for _, s := range tc.contains {
			if !strings.Contains(raw, s) {
				t.Errorf("%q: lacks %s: %s", tc.fail, s, raw)
			}
		}
	}
}

func TestFormErrors(t *testing.T) {
	app, _ := newTestAPI(t)
	rows := []struct {
		name, ctype, body string
		status            int
	}{
		{"malformed urlencoded", "application/x-www-form-urlencoded", "title=%zz", 400},
		{"malformed multipart", "multipart/form-data; boundary=x", "--y\r\n\r\n", 400},
		{"multipart without boundary", "multipart/form-data", "x", 400},
		{"no media type with a body", "", "title=x", 415},
		{"no media type, no body", "", "", 422},
	}
	for _, tc := range rows {
		status, _, raw := send(t, app, "POST", "/upload", tc.ctype, tc.body)
		if status != tc.status {
			t.Errorf("%s: status %d, want %d: %s", tc.name, status, tc.status, raw)
		}
	}
	// An empty body of another media type is an absent body, not a 415.
	if status, _, raw := send(t, app, "POST", "/orders", "text/plain", ""); status != 422 || !strings.Contains(raw, `"location":"body"`) {
		t.Errorf("empty text/plain body: %d %s", status, raw)
	}
}

// TestMultipartPartLimit: more parts than multipart.Reader allows is a 413.
func TestMultipartPartLimit(t *testing.T) {
	app := plinth.Bare()
	a := api.New(app, api.Config{OpenAPIPath: "-"})
	api.Register(a, api.Operation{Method: "POST", Path: "/upload", MaxBodyBytes: plinth.Off}, func(context.Context, *uploadIn) (*struct{}, error) {
		return nil, nil
	})
	var b bytes.Buffer
	for i := 0; i < 1100; i++ {
		b.WriteString("--x\r\nContent-Disposition: form-data; name=\"v\"\r\n\r\n1\r\n")
	}
	b.WriteString("--x--\r\n")
	req, _ := http.NewRequest("POST", "/upload", &b)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
}

// TestUploadStorageFailure: a multipart file that cannot be spilled to disk
// (TMPDIR missing) is the server's failure: a 500 logged with its cause, not
// a 400 "malformed".
func TestUploadStorageFailure(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	var logs bytes.Buffer
	app := plinth.Bare()
	app.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	a := api.New(app, api.Config{OpenAPIPath: "-", MaxMultipartMemory: 1024})
	type upload struct {
		File *multipart.FileHeader `form:"file"`
	}
	type in struct{ Body upload }
	api.Register(a, api.Operation{Method: "POST", Path: "/up"}, func(context.Context, *in) (*struct{}, error) { return nil, nil })
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "big.bin")
	_, _ = fw.Write(bytes.Repeat([]byte("z"), 64<<10))
	_ = mw.Close()
	req := httptest.NewRequest("POST", "/up", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != 500 || !strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("an upload that cannot be stored: %d, logs %q; want a logged 500", rec.Code, logs.String())
	}
}
