package plinthtest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/plinthtest"
)

// formsPage is a page of forms whose fields start as a browser's do.
const formsPage = `<!doctype html><title>forms</title>
<form id="f" method="POST" action="/got">
 <input type="HIDDEN" name="CSRF_Token" value="tok">
 <input type="hidden" name="id" value="7">
 <input name="csrf_note" value="visible">
 <input name="text" value="t">
 <input name="empty">
 <input value="no name">
 <input name="off" value="x" disabled>
 <input type="file" name="file" value="f">
 <input type="image" name="img" value="i">
 <input type="reset" name="reset" value="r">
 <input type="button" name="btn" value="b">
 <input type="checkbox" name="on" checked>
 <input type="checkbox" name="val" value="v" checked>
 <input type="checkbox" name="blank" value="" checked>
 <input type="checkbox" name="unchecked" value="u">
 <input type="radio" name="r" value="1">
 <input type="radio" name="r" value="2" checked>
 <textarea name="area">
first line</textarea>
 <textarea name="offarea" disabled>x</textarea>
 <select name="sel"><optgroup><option>  One  </option><option value="2" selected>Two</option><option value="3" selected>Three</option></optgroup></select>
 <select name="first"><option value="a">A</option><option value="b">B</option></select>
 <select name="offsel" disabled><option>x</option></select>
 <select><option>nameless</option></select>
 <button type="button" name="plain" value="p">no</button>
 <button type="reset" name="rs" value="r">no</button>
 <button name="go" value="1">Go</button>
 <button type="submit" name="later" value="2">Later</button>
</form>
<form class="get search" action="find"><input name="q" value="x"><input type="submit" name="s" value="Search"><input type="submit" name="s2" value="No"></form>
<form id="bad" method="post" action="http://[::1"><input name="a"></form>
<form id="self" method="post"><input name="a" value="1"></form>`

func formsApp() *plinth.App {
	app := plinth.New()
	app.Get("/forms/page", func(c *plinth.Ctx) error { return c.HTML(200, formsPage) })
	app.Get("/forms/none", func(c *plinth.Ctx) error { return c.HTML(200, `<p>no form</p>`) })
	echo := func(c *plinth.Ctx) error {
		r := c.Request()
		if err := r.ParseForm(); err != nil {
			return err
		}
		return c.Text(200, fmt.Sprintf("%s %s origin=%q site=%q mode=%q accept=%q form=%s", r.Method, r.URL.Path,
			r.Header.Get("Origin"), r.Header.Get("Sec-Fetch-Site"), r.Header.Get("Sec-Fetch-Mode"), r.Header.Get("Accept"), r.Form.Encode()))
	}
	app.Post("/got", echo)
	app.Get("/forms/find", echo)
	app.Post("/forms/page", echo)
	return app
}

// TestFormFields: a form's fields start with the values a browser sends,
// and Submit sends them with the first submit button's.
func TestFormFields(t *testing.T) {
	c := plinthtest.New(t, formsApp(), plinthtest.Config{})
	f := c.Form("/forms/page", "#f")
	want := "CSRF_Token=tok&area=first+line&blank=&csrf_note=visible&empty=&first=a&id=7&on=on&r=2&sel=2&text=t&val=v"
	if got := f.Values().Encode(); got != want {
		t.Errorf("values\n got %s\nwant %s", got, want)
	}
	if f.Value("sel") != "2" || f.Value("nope") != "" {
		t.Errorf("Value: %q %q", f.Value("sel"), f.Value("nope"))
	}
	// every named field can be set, disabled ones and buttons included
	for _, name := range []string{"off", "offarea", "offsel", "file", "img", "reset", "btn", "unchecked", "go"} {
		f.Set(name, "set")
	}
	f = c.Form("/forms/page", "#f")
	f.Submit().Status(200).Contains(`POST /got origin="http://example.com" site="same-origin" mode="navigate" accept="text/html" form=` +
		"CSRF_Token=tok&area=first+line&blank=&csrf_note=visible&empty=&first=a&go=1&id=7&on=on&r=2&sel=2&text=t&val=v")
	if f.Values().Has("go") {
		t.Error("Submit added the button to the form's values")
	}
	// a value set for the button's name is sent instead
	c.Form("/forms/page", "#f").Set("go", "mine").Submit().Contains("&go=mine&")
	// a GET form: to its action resolved against the page, the values in
	// the query, no Origin
	c.Form("/forms/page", "form.search").Set("q", "a b").Submit("Accept", "*/*").
		Contains(`GET /forms/find origin="" site="same-origin" mode="navigate" accept="*/*" form=q=a+b&s=Search`)
	// no action: the page itself
	c.Form("/forms/page", "#self").Submit().Contains("POST /forms/page ")
	// Remove of a visible field named csrf keeps the proof of origin; of
	// the hidden one (its name in any case) drops it
	c.Form("/forms/page", "#f").Remove("csrf_note").Submit().Contains(`origin="http://example.com" site="same-origin"`)
	c.Form("/forms/page", "#f").Remove("CSRF_Token").Submit().
		Contains(`origin="" site="" mode="" accept="text/html" form=area=`)
}

// TestFormFailures: what a form cannot do fails the test, naming the form
// and its fields.
func TestFormFailures(t *testing.T) {
	app := formsApp()
	for _, tc := range []struct {
		name  string
		fn    func(c *plinthtest.Client)
		parts []string
	}{
		{"no match lists the forms", func(c *plinthtest.Client) { c.Form("/forms/page", "#nope") },
			[]string{"Form(\"#nope\"): no form matches; the page's forms:\n    " +
				`<form id="f" method="POST" action="/got">` + "\n    " +
				`<form class="get search" action="find">` + "\n    " +
				`<form id="bad" method="post" action="http://[::1">` + "\n    " +
				`<form id="self" method="post">` + "\n  request: GET /forms/page"}},
		{"a match that is no form", func(c *plinthtest.Client) { c.Form("/forms/page", "input") }, []string{`Form("input"): no form matches`}},
		{"no form", func(c *plinthtest.Client) { c.Form("/forms/none", "form") }, []string{`Form("form"): the page has no form`}},
		{"not found", func(c *plinthtest.Client) { c.Form("/forms/nope", "form") }, []string{`Form("/forms/nope", "form"): the page answers 404`}},
		{"Set", func(c *plinthtest.Client) { c.Form("/forms/page", "form.search").Set("r", "1") },
			[]string{`Form.Set("r"): the form <form class="get search" action="find"> has no such field; its fields: q, s, s2`}},
		{"bad action", func(c *plinthtest.Client) { c.Form("/forms/page", "#bad").Submit() }, []string{`Submit: bad form action "http://[::1"`}},
		{"odd headers", func(c *plinthtest.Client) { c.Form("/forms/page", "#self").Submit("Accept") }, []string{"plinthtest: Submit: headers come in name, value pairs"}},
		{"a failed submission", func(c *plinthtest.Client) { c.Form("/forms/page", "#self").Submit("Accept", "x", "Y") }, []string{"plinthtest: Submit: headers come in name, value pairs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantFailure(t, func(tb testing.TB) { tc.fn(plinthtest.New(tb, app, plinthtest.Config{})) }, tc.parts...)
		})
	}
}

// htmlPage is a page for the selectors.
const htmlPage = `<!doctype html><title>t</title>
<main id="m"><nav><a class="x active" href="/a" data-k="">A</a><a class="x" href="/b">B</a></nav>
<section><p id="azAZ09-_:" class="Z0">  one
  two </p><p id="À">x</p><input name="e" value=""><input name="n"></section></main>
<aside><a href="/c">C</a></aside>`

// TestSelectors: each part of a selector matches what it names and no
// more.
func TestSelectors(t *testing.T) {
	app := plinth.New()
	app.Get("/h", func(c *plinth.Ctx) error { return c.HTML(200, htmlPage) })
	app.Get("/text", func(c *plinth.Ctx) error { return c.Text(200, strings.Repeat("a", 64)+"b") })
	c := plinthtest.New(t, app, plinthtest.Config{})
	h := c.Get("/h").HTML()
	if h.Response().Code() != 200 {
		t.Error("Response")
	}
	for sel, n := range map[string]int{
		"a": 3, "A": 3, "*": 15, "nav a": 2, "main a": 2, "main nav a": 2, "nav main a": 0, "aside a": 1,
		"section nav": 0, "p": 2, "main p": 2, "nav p": 0,
		"a.x": 2, ".x.active": 1, "a.active.x": 1, ".active.y": 0, ".X": 0,
		"#m a": 2, "#azAZ09-_:": 1, "#À": 1, "p.Z0": 1,
		"[href]": 3, "a[href=/b]": 1, `a[href="/b"]`: 1, "a[href='/b']": 1, "a[href=/z]": 0,
		"[data-k]": 1, "[data-k=]": 1, "[class=x]": 1,
		"input[value]": 1, "input[value=]": 1, "[name]": 2,
	} {
		if got := len(h.FindAll(sel)); got != n {
			t.Errorf("%q matches %d elements, want %d", sel, got, n)
		}
	}
	h.Count("nav a", 2).Find("nav a").HasAttr("href", "/a").HasText("A")
	p := h.Find("p.Z0")
	if p.Text() != "one two" || p.Attr("id") != "azAZ09-_:" || p.Attr("nope") != "" || p.Node() == nil {
		t.Errorf("Text %q, Attr %q", p.Text(), p.Attr("id"))
	}
	if got := h.Find("main").Text(); got != "A B one two x" {
		t.Errorf("main's text %q", got)
	}
	for _, tc := range []struct {
		fn    func(h *plinthtest.HTML)
		parts []string
	}{
		{func(h *plinthtest.HTML) { h.Count("a", 2) }, []string{`HTML: "a" matches 3 elements, want 2`}},
		{func(h *plinthtest.HTML) { h.Find("nav").HasText("C") }, []string{`HTML: <nav> has text "A B", want it to contain "C"`}},
		{func(h *plinthtest.HTML) { h.Find("a").HasAttr("href", "/b") }, []string{`HTML: <a href="/a">, want "/b"`}},
		{func(h *plinthtest.HTML) { h.Find("b") }, []string{`HTML: nothing matches "b"`}},
		{func(h *plinthtest.HTML) { h.Find("#") }, []string{`selector "#": # without an id`}},
		{func(h *plinthtest.HTML) { h.Find("a.") }, []string{". without a class"}},
		{func(h *plinthtest.HTML) { h.Find("a[href") }, []string{"[ without ]"}},
		{func(h *plinthtest.HTML) { h.Find("a[]") }, []string{"[] without an attribute name"}},
		{func(h *plinthtest.HTML) { h.Find("a[=x]") }, []string{"[] without an attribute name"}},
		{func(h *plinthtest.HTML) { h.Find("   ") }, []string{"empty selector"}},
		{func(h *plinthtest.HTML) { h.Find("a/b") }, []string{`unexpected '/'`}},
		{func(h *plinthtest.HTML) { h.Find("a@") }, []string{`unexpected '@'`}},
		{func(h *plinthtest.HTML) { h.Find("a`") }, []string{"unexpected '`'"}},
		{func(h *plinthtest.HTML) { h.Find("a{") }, []string{`unexpected '{'`}},
		{func(h *plinthtest.HTML) { h.Find("a;") }, []string{`unexpected ';'`}},
		{func(h *plinthtest.HTML) { h.Find("a\x7f") }, []string{`unexpected '\x7f'`}},
	} {
		wantFailure(t, func(tb testing.TB) { tc.fn(plinthtest.New(tb, app, plinthtest.Config{}).Get("/h").HTML()) }, tc.parts...)
	}
	// a body that is not HTML: its first 64 bytes
	msg := failure(t, func(tb testing.TB) { plinthtest.New(tb, app, plinthtest.Config{}).Get("/text").HTML() })
	if want := `HTML: the body is not HTML (content type "text/plain; charset=utf-8", first bytes "` + strings.Repeat("a", 64) + `")`; !strings.Contains(msg, want) {
		t.Errorf("%q, want %q", msg, want)
	}
}

// TestHTMLShortBody: a short body that is not HTML is shown whole.
func TestHTMLShortBody(t *testing.T) {
	app := plinth.New()
	app.Get("/t", func(c *plinth.Ctx) error { return c.Text(http.StatusOK, strings.Repeat("a", 64)) })
	wantFailure(t, func(tb testing.TB) { plinthtest.New(tb, app, plinthtest.Config{}).Get("/t").HTML() },
		`first bytes "`+strings.Repeat("a", 64)+`")`)
}
