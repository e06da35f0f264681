package plinth_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
)

type bindOrder struct {
	Item  string                `json:"item" form:"item"`
	Qty   int                   `json:"qty" form:"qty"`
	Gift  *bool                 `json:"gift,omitempty" form:"gift"`
	Tags  []string              `json:"tags" form:"tag"`
	When  time.Time             `json:"when" form:"when"`
	Score float64               `json:"score"` // a form takes its json name
	Skip  string                `form:"-"`
	Note  string                // a form takes the field name
	Sizes []uint8               `json:"sizes" form:"size"`
	Doc   *multipart.FileHeader `json:"-" form:"doc"`
}

// bindApp answers the bound order as JSON; /small has a 64-byte body limit.
func bindApp() *plinth.App {
	app := plinth.New()
	app.Logger = quiet
	h := func(c *plinth.Ctx) error {
		var o bindOrder
		if err := c.Bind(&o); err != nil {
			return err
		}
		doc := ""
		if o.Doc != nil {
			doc = o.Doc.Filename
		}
		return c.JSON(200, map[string]any{"order": &o, "doc": doc})
	}
	app.Post("/orders", h)
	small := app.Group("/small")
	small.SetBodyLimit(64)
	small.Post("/orders", h)
	app.Post("/notptr", func(c *plinth.Ctx) error {
		var o bindOrder
		return c.Bind(o)
	})
	app.Post("/badform", func(c *plinth.Ctx) error {
		var v struct {
			Ch chan int `form:"ch"`
		}
		return c.Bind(&v)
	})
	return app
}

func multipartBody(t *testing.T, fields map[string]string, files int) (string, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	for i := range files {
		fw, _ := w.CreateFormFile("doc", "f"+string(rune('a'+i%26))+".txt")
		_, _ = fw.Write([]byte("hello"))
	}
	_ = w.Close()
	return b.String(), w.FormDataContentType()
}

func TestCtxBind(t *testing.T) {
	mp, mpType := multipartBody(t, map[string]string{"item": "pen", "qty": "3", "tag": "a"}, 1)
	mpMany, mpManyType := multipartBody(t, map[string]string{"item": "pen"}, 17)
	mpBadQty, mpBadQtyType := multipartBody(t, map[string]string{"qty": "three"}, 0)
	long := `{"item":"` + strings.Repeat("x", 100) + `"}`
	for _, tc := range []struct {
		name, path, ctype, body string
		chunked                 bool // no Content-Length: the limit is met while reading
		code                    int
		want                    string // in the body: the bound value or the problem's detail
	}{
		{"json", "/orders", "application/json", `{"item":"pen","qty":2,"gift":true,"tags":["a"],"when":"2026-01-02T03:04:05Z","extra":1}`, false, 200,
			`"item":"pen","qty":2,"gift":true,"tags":["a"],"when":"2026-01-02T03:04:05Z"`},
		{"json charset", "/orders", "application/json; charset=utf-8", `{"item":"pen"}`, false, 200, `"item":"pen"`},
		{"json suffix", "/orders", "application/merge-patch+json", `{"item":"pen"}`, false, 200, `"item":"pen"`},
		{"no content type", "/orders", "", `{"item":"pen"}`, false, 200, `"item":"pen"`},
		{"malformed", "/orders", "application/json", `{"item":"pen",}`, false, 400,
			`the request body is not valid JSON: invalid character '}' looking for beginning of object key string (at byte 15)`},
		{"truncated", "/orders", "application/json", `{"item":"pen"`, false, 400, `the request body is not valid JSON: unexpected end of input`},
		{"trailing", "/orders", "application/json", `{"item":"pen"} {}`, false, 400,
			`the request body is not valid JSON: unexpected data after the JSON value`},
		{"wrong type", "/orders", "application/json", `{"qty":"two"}`, false, 400,
			`the request body member \"qty\" must be an integer, not a JSON string`},
		{"empty", "/orders", "application/json", ``, false, 400, `the request body is empty`},
		{"blank", "/orders", "application/json", " \n", false, 400, `the request body is empty`},
		{"declared over the limit", "/small/orders", "application/json", long, false, 413, `"status":413`},
		{"read over the limit", "/small/orders", "application/json", long, true, 413, `"status":413`},
		{"form", "/orders", "application/x-www-form-urlencoded",
			"item=pen&qty=2&gift=1&tag=a&tag=b&tag=&when=2026-01-02T03:04:05Z&score=1.5&Note=hi&Skip=no&size=1&size=2", false, 200,
			`"item":"pen","qty":2,"gift":true,"tags":["a","b"],"when":"2026-01-02T03:04:05Z","score":1.5,"Skip":"","Note":"hi","sizes":"AQI="`},
		{"form bad int", "/orders", "application/x-www-form-urlencoded", "qty=two", false, 400,
			`the form field \"qty\" must be an integer, not \"two\"`},
		{"form bad slice value", "/orders", "application/x-www-form-urlencoded", "size=1&size=300", false, 400,
			`the form field \"size\" must be a non-negative integer, not \"300\"`},
		{"form bad time", "/orders", "application/x-www-form-urlencoded", "when=yesterday", false, 400,
			`the form field \"when\" must be a date-time (RFC 3339), not \"yesterday\"`},
		{"form malformed", "/orders", "application/x-www-form-urlencoded", "item=%zz", false, 400, `the form body is malformed`},
		{"form over the limit", "/small/orders", "application/x-www-form-urlencoded", "item=" + strings.Repeat("x", 100), true, 413, `"status":413`},
		{"multipart", "/orders", mpType, mp, false, 200, `"item":"pen","qty":3,"tags":["a"]`},
		{"multipart file", "/orders", mpType, mp, false, 200, `"doc":"fa.txt"`},
		{"multipart bad value", "/orders", mpBadQtyType, mpBadQty, false, 400, `the form field \"qty\" must be an integer, not \"three\"`},
		{"multipart too many files", "/orders", mpManyType, mpMany, false, 413, `at most 16 files are accepted`},
		{"multipart malformed", "/orders", "multipart/form-data; boundary=xyz", "--xyz\r\nbroken", false, 400, `the multipart body is malformed`},
		{"multipart no boundary", "/orders", "multipart/form-data", "item=pen", false, 400, `the multipart body is malformed`},
		{"unsupported", "/orders", "text/plain", "item=pen", false, 415,
			`the request body must be application/json, application/x-www-form-urlencoded or multipart/form-data, not text/plain`},
		{"unsupported xml", "/orders", "application/xml", "<a/>", false, 415, `not application/xml`},
		{"not a pointer", "/notptr", "application/json", `{}`, false, 500, `"status":500`},
		{"unsettable form field", "/badform", "application/x-www-form-urlencoded", "ch=1", false, 500, `"status":500`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(tc.body)
			req := httptest.NewRequest("POST", tc.path, body)
			if tc.chunked {
				req.ContentLength = -1
				req.Body = io.NopCloser(body)
			}
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			rec := httptest.NewRecorder()
			bindApp().ServeHTTP(rec, req)
			if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.want) {
				t.Fatalf("%d %s\nwant %d with %s", rec.Code, rec.Body, tc.code, tc.want)
			}
			if tc.code >= 400 && rec.Header().Get("Content-Type") != "application/problem+json" {
				t.Errorf("Content-Type %q, want a problem", rec.Header().Get("Content-Type"))
			}
			if tc.code == 400 || tc.code == 415 {
				var p struct{ Detail string }
				if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Detail == "" {
					t.Errorf("no problem detail: %v %s", err, rec.Body)
				}
			}
		})
	}
}
