package api_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

type noteInput struct {
	Text string   `json:"text" validate:"required,maxLength=20"`
	Link string   `json:"link,omitempty" validate:"format=url"`
	Tags []string `json:"tags,omitempty" validate:"maxItems=2,minLength=1"`
}

// Validate is the cross-field hook: it runs after the tag rules passed.
func (n *noteInput) Validate(context.Context) error {
	if n.Text == "forbidden" {
		return &api.FieldError{Location: "body.text", Message: "is not allowed", Value: n.Text}
	}
	return nil
}

type noteForm struct {
	Title string                `form:"title" validate:"required,maxLength=10"`
	File  *multipart.FileHeader `form:"file"`
}

// nativeApp serves native handlers that bind with a Binder and with Bind.
func nativeApp(t testing.TB) *plinth.App {
	app := plinth.New()
	small := app.Group("/small")
	small.SetBodyLimit(64)
	binder := api.NewBinder[noteInput](api.Config{})
	handler := func(c *plinth.Ctx) error {
		var in noteInput
		if err := binder.Bind(c, &in); err != nil {
			return err
		}
		return c.JSON(http.StatusCreated, &in)
	}
	app.Post("/notes", handler)
	small.Post("/notes", handler)
	app.Post("/generic", func(c *plinth.Ctx) error {
		in, err := api.Bind[noteInput](c)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusCreated, in)
	})
	app.Post("/optional", func(c *plinth.Ctx) error {
		in, err := api.Bind[*noteInput](c)
		if err != nil {
			return err
		}
		if *in == nil {
			return c.NoContent(http.StatusNoContent)
		}
		return c.JSON(http.StatusCreated, *in)
	})
	app.Post("/bad", func(c *plinth.Ctx) error {
		_, err := api.Bind[struct {
			N int `json:"n" validate:"minLength=1"`
		}](c)
		return err
	})
	forms := api.NewBinder[noteForm](api.Config{MaxFiles: 1})
	app.Post("/form", func(c *plinth.Ctx) error {
		var in noteForm
		if err := forms.Bind(c, &in); err != nil {
			return err
		}
		size := int64(-1)
		if in.File != nil {
			size = in.File.Size
		}
		return c.JSON(http.StatusOK, map[string]any{"title": in.Title, "size": size})
	})
	return app
}

func TestNativeBinder(t *testing.T) {
	app := nativeApp(t)
	rows := []struct {
		name, path, ctype, body string
		code                    int
		contains                []string
	}{
		{name: "created", path: "/notes", ctype: "application/json", body: `{"text":"hi","link":"https://example.com","tags":["a"]}`, code: 201, contains: []string{`"text":"hi"`}},
		{name: "no content type", path: "/notes", body: `{"text":"hi"}`, code: 201},
		{name: "generic", path: "/generic", ctype: "application/json", body: `{"text":"hi"}`, code: 201, contains: []string{`"text":"hi"`}},
		{name: "malformed", path: "/notes", ctype: "application/json", body: `{"text":`, code: 400, contains: []string{"not valid JSON"}},
		{name: "trailing", path: "/generic", ctype: "application/json", body: `{"text":"hi"} {}`, code: 400},
		{name: "wrong media type", path: "/notes", ctype: "text/plain", body: `{"text":"hi"}`, code: 415},
		{name: "too large", path: "/small/notes", ctype: "application/json", body: `{"text":"` + strings.Repeat("x", 100) + `"}`, code: 413},
		{name: "empty body", path: "/notes", ctype: "application/json", body: ``, code: 422, contains: []string{`"location":"body"`, "is required"}},
		{name: "optional empty body", path: "/optional", ctype: "application/json", body: ``, code: 204},
		{name: "optional body", path: "/optional", ctype: "application/json", body: `{"text":"hi"}`, code: 201},
		{name: "every error", path: "/notes", ctype: "application/json", body: `{"text":"","link":"javascript:alert(1)","tags":["a","","c"],"x":1}`, code: 422,
			contains: []string{`"location":"body.text","message":"is required"`, `"location":"body.link","message":"must be a valid url","value":"javascript:alert(1)"`,
				`"location":"body.tags","message":"must have at most 2 items"`, `"location":"body.tags[1]"`, `"location":"body.x"`}},
		{name: "type error", path: "/generic", ctype: "application/json", body: `{"text":42}`, code: 422,
			contains: []string{`"location":"body.text","message":"must be a string","value":42`}},
		{name: "hook", path: "/notes", ctype: "application/json", body: `{"text":"forbidden"}`, code: 422, contains: []string{"is not allowed"}},
		{name: "bad type is a 500", path: "/bad", ctype: "application/json", body: `{"n":1}`, code: 500},
		{name: "form", path: "/form", ctype: "application/x-www-form-urlencoded", body: "title=hello", code: 200, contains: []string{`"title":"hello"`}},
		{name: "form invalid", path: "/form", ctype: "application/x-www-form-urlencoded", body: "title=", code: 422, contains: []string{`"location":"body.title"`}},
		{name: "form wrong media type", path: "/form", ctype: "application/json", body: `{}`, code: 415},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			code, _, raw := send(t, app, "POST", tc.path, tc.ctype, tc.body)
			if code != tc.code {
				t.Fatalf("status %d, want %d: %s", code, tc.code, raw)
			}
			for _, s := range tc.contains {
				if !strings.Contains(raw, s) {
					t.Errorf("response lacks %s: %s", s, raw)
				}
			}
		})
	}
	t.Run("NewBinder panics on a bad tag", func(t *testing.T) {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "does not apply") {
				t.Fatalf("panic %v", r)
			}
		}()
		api.NewBinder[struct {
			N int `json:"n" validate:"minLength=1"`
		}](api.Config{})
	})
}

// failingBody is a request body whose reads fail with err after some bytes.
type failingBody struct {
	data []byte
	err  error
}

func (b *failingBody) Read(p []byte) (int, error) {
	if len(b.data) > 0 {
		n := copy(p, b.data)
		b.data = b.data[n:]
		return n, nil
	}
	return 0, b.err
}

func (b *failingBody) Close() error { return nil }

// TestBodyReadErrors: a body that cannot be read goes to the App's renderer
// as the core's *plinth.BodyError, through operations, binders and forms:
// a trickled body cut by the read deadline is 408, a broken one 400, never
// a 422 or 500.
func TestBodyReadErrors(t *testing.T) {
	app, a := newTestAPI(t)
	binder := api.NewBinder[noteInput](api.Config{})
	app.Post("/native", func(c *plinth.Ctx) error {
		var in noteInput
		if err := binder.Bind(c, &in); err != nil {
			return err
		}
		return c.NoContent(204)
	})
	_ = a
	for _, tc := range []struct {
		err  error
		code int
	}{
		{os.ErrDeadlineExceeded, http.StatusRequestTimeout},
		{fmt.Errorf("read tcp: %w", os.ErrDeadlineExceeded), http.StatusRequestTimeout},
		{io.ErrUnexpectedEOF, http.StatusBadRequest},
		{errors.New("http: invalid byte in chunk length"), http.StatusBadRequest},
	} {
		for _, route := range []struct{ path, ctype, body string }{
			{"/orders", "application/json", `{"name":"Ada",`},
			{"/native", "application/json", `{"text":`},
			{"/upload", "application/x-www-form-urlencoded", "title=a&cou"},
			{"/upload", "multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nab"},
		} {
			req := httptest.NewRequest("POST", route.path, nil)
			req.Body = &failingBody{data: []byte(route.body), err: tc.err}
			req.ContentLength = -1
			req.Header.Set("Content-Type", route.ctype)
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			if rec.Code != tc.code || rec.Header().Get("Content-Type") != "application/problem+json" {
				t.Errorf("%s (%s) with %v: %d %s, want %d", route.path, route.ctype, tc.err, rec.Code, rec.Body, tc.code)
			}
		}
	}
}

// TestMultipartTempFiles uploads through a real server with a small
// in-memory share, so that files spill to multipart-* temporary files, and
// checks that none remains after a success, a 413 for too many files, a 413
// for a body over the limit (sent chunked, so that it is cut while files
// are being written) and a 422, for an operation and a native Binder.
func TestMultipartTempFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	app := plinth.New()
	cfg := api.Config{MaxMultipartMemory: 1 << 10, MaxFiles: 2, OpenAPIPath: "-"}
	a := api.New(app, cfg)
	spilled := 0 // handlers that saw their upload in a temporary file
	onDisk := func(fh *multipart.FileHeader) {
		if files, _ := filepath.Glob(filepath.Join(dir, "multipart-*")); fh != nil && len(files) > 0 {
			spilled++
		}
	}
	api.Register(a, api.Operation{Method: "POST", Path: "/op", MaxBodyBytes: 256 << 10, DefaultStatus: 200},
		func(ctx context.Context, in *uploadIn) (*uploadOut, error) {
			onDisk(in.Body.File)
			return &uploadOut{Title: in.Body.Title}, nil
		})
	native := api.NewBinder[uploadForm](cfg)
	limited := app.Group("/native")
	limited.SetBodyLimit(256 << 10)
	limited.Post("/up", func(c *plinth.Ctx) error {
		var in uploadForm
		if err := native.Bind(c, &in); err != nil {
			return err
		}
		onDisk(in.File)
		return c.NoContent(204)
	})
	srv := httptest.NewServer(app)
	defer srv.Close()

	form := func(title string, files, size int) (*bytes.Buffer, string) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		if title != "" {
			_ = mw.WriteField("title", title)
		}
		for i := 0; i < files; i++ {
			name := "more"
			if i == 0 {
				name = "file"
			}
			fw, _ := mw.CreateFormFile(name, fmt.Sprintf("f%d.bin", i))
			_, _ = fw.Write(bytes.Repeat([]byte("x"), size))
		}
		_ = mw.Close()
		return &body, mw.FormDataContentType()
	}
	for _, path := range []string{"/op", "/native/up"} {
		for _, tc := range []struct {
			name    string
			title   string
			files   int
			size    int
			chunked bool
			codes   []int
		}{
			{"success", "pic", 2, 20 << 10, false, []int{200, 204}},
			{"too many files", "pic", 3, 20 << 10, false, []int{413}},
			{"over the limit", "pic", 2, 200 << 10, true, []int{413}},
			{"invalid", "", 2, 20 << 10, false, []int{422}},
		} {
			body, ctype := form(tc.title, tc.files, tc.size)
			var r io.Reader = body
			if tc.chunked {
				r = io.MultiReader(body) // no length: sent chunked, read until the limit
			}
			req, _ := http.NewRequest("POST", srv.URL+path, r)
			req.Header.Set("Content-Type", ctype)
			res, err := http.DefaultClient.Do(req)
			switch {
			case err != nil && tc.chunked:
				// The server answered 413 and closed while the client was
				// still sending: the client may see the closed connection
				// rather than the answer. The server closes only after the
				// handler returned, so the check of the files still holds.
				t.Logf("%s %s: %v", path, tc.name, err)
			case err != nil:
				t.Fatalf("%s %s: %v", path, tc.name, err)
			default:
				got, _ := io.ReadAll(res.Body)
				res.Body.Close()
				ok := false
				for _, c := range tc.codes {
					ok = ok || res.StatusCode == c
				}
				if !ok {
					t.Errorf("%s %s: %d %s, want %v", path, tc.name, res.StatusCode, got, tc.codes)
				}
			}
			left, _ := filepath.Glob(filepath.Join(dir, "multipart-*"))
			if len(left) > 0 {
				t.Errorf("%s %s: temporary files left: %v", path, tc.name, left)
			}
		}
	}
	if spilled != 2 {
		t.Errorf("%d successful uploads spilled to disk, want 2: the test did not exercise temporary files", spilled)
	}
}

// A Binder's 422 wraps its FieldErrors, so that a caller that renders
// them itself (web.BindForm) finds them with errors.As.
func TestBinderErrorWrapsFieldErrors(t *testing.T) {
	app := plinth.Bare()
	b := api.NewBinder[noteForm](api.Config{})
	var got error
	app.Post("/", func(c *plinth.Ctx) error {
		var in noteForm
		got = b.Bind(c, &in)
		return got
	})
	req := httptest.NewRequest("POST", "/", strings.NewReader("title=far+too+long+a+title"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	app.ServeHTTP(httptest.NewRecorder(), req)
	fes, ok := errors.AsType[api.FieldErrors](got)
	if !ok || len(fes) != 1 || fes[0].Location != "body.title" {
		t.Fatalf("errors.As(%v): %v %v, want the one error at body.title", got, fes, ok)
	}
}
