package plinthtest

import (
	"net/url"
	"sort"
	"strings"

	"golang.org/x/net/html"
)

// Form fetches path (GET) and returns its form that selector matches, to
// fill and submit as a browser would. A page that is not a 200 HTML page,
// or a selector that matches no form, fails the test, listing the page's
// forms.
func (c *Client) Form(path, selector string) *Form {
	c.t.Helper()
	r := c.Get(path, "Accept", "text/html")
	if r == nil {
		return nil
	}
	if r.code != 200 {
		r.fail("Form(%q, %q): the page answers %d", path, selector, r.code)
	}
	return r.HTML().Form(selector)
}

// Form returns the page's form that selector matches ("form#login",
// "#login", "form[action=/login]"), failing the test with the list of the
// page's forms when none matches.
func (h *HTML) Form(selector string) *Form {
	h.r.t.Helper()
	for _, e := range h.FindAll(selector) {
		if e.n.Data == "form" {
			return newForm(h, e.n)
		}
	}
	var forms []string
	for _, e := range h.FindAll("form") {
		forms = append(forms, describeForm(e.n))
	}
	if len(forms) == 0 {
		h.r.fail("Form(%q): the page has no form", selector)
	} else {
		h.r.fail("Form(%q): no form matches; the page's forms:\n    %s", selector, strings.Join(forms, "\n    "))
	}
	return &Form{h: h, values: url.Values{}}
}

func describeForm(n *html.Node) string {
	var b strings.Builder
	b.WriteString("<form")
	for _, a := range []string{"id", "class", "method", "action", "name"} {
		if v := attr(n, a); v != "" {
			b.WriteString(" " + a + "=\"" + v + "\"")
		}
	}
	b.WriteString(">")
	return b.String()
}

// Form is an HTML form being filled: its fields start with the values the
// page gives them (hidden fields, the CSRF token among them, checked
// boxes, selected options), as a browser sends them.
type Form struct {
	h      *HTML
	n      *html.Node
	values url.Values
	names  map[string]bool // every field name of the form
	hidden map[string]bool // the names of its hidden inputs
	submit string          // name=value of the first submit button with a name
	forged bool            // a hidden CSRF field was removed: no proof of origin
}

func newForm(h *HTML, n *html.Node) *Form {
	f := &Form{h: h, n: n, values: url.Values{}, names: map[string]bool{}, hidden: map[string]bool{}}
	var walk func(*html.Node)
	walk = func(x *html.Node) {
		if x.Type == html.ElementNode {
			name := attr(x, "name")
			disabled := hasAttr(x, "disabled")
			switch x.Data {
			case "input":
				typ := strings.ToLower(attr(x, "type"))
				if name != "" {
					f.names[name] = true
					if typ == "hidden" {
						f.hidden[name] = true
					}
				}
				switch {
				case name == "" || disabled || typ == "file" || typ == "image" || typ == "reset" || typ == "button":
				case typ == "submit":
					if f.submit == "" {
						f.submit = name + "=" + attr(x, "value")
					}
				case typ == "checkbox" || typ == "radio":
					if hasAttr(x, "checked") {
						v := attr(x, "value")
						if v == "" && !hasAttr(x, "value") {
							v = "on"
						}
						f.values.Add(name, v)
					}
				default:
					f.values.Add(name, attr(x, "value"))
				}
			case "textarea":
				if name != "" {
					f.names[name] = true
					if !disabled {
						f.values.Add(name, strings.TrimPrefix(rawText(x), "\n"))
					}
				}
			case "select":
				if name != "" {
					f.names[name] = true
					if !disabled {
						f.values.Add(name, selected(x))
					}
				}
				return
			case "button":
				if name != "" && f.submit == "" && (attr(x, "type") == "" || attr(x, "type") == "submit") {
					f.names[name] = true
					f.submit = name + "=" + attr(x, "value")
				}
			}
		}
		for ch := x.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(n)
	return f
}

// selected returns the value of the select's selected option, or its
// first option's.
func selected(sel *html.Node) string {
	first, found := "", false
	var pick string
	var picked bool
	var walk func(*html.Node)
	walk = func(x *html.Node) {
		if x.Type == html.ElementNode && x.Data == "option" {
			v := attr(x, "value")
			if !hasAttr(x, "value") {
				v = strings.TrimSpace(text(x))
			}
			if !found {
				first, found = v, true
			}
			if hasAttr(x, "selected") && !picked {
				pick, picked = v, true
			}
		}
		for ch := x.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(sel)
	if picked {
		return pick
	}
	return first
}

// Value returns the field's current value.
func (f *Form) Value(name string) string { return f.values.Get(name) }

// Set sets the field name to value. A name that is not a field of the
// form fails the test, listing the form's fields.
func (f *Form) Set(name, value string) *Form {
	f.h.r.t.Helper()
	if f.n != nil && !f.names[name] {
		var names []string
		for n := range f.names {
			names = append(names, n)
		}
		sort.Strings(names)
		f.h.r.fail("Form.Set(%q): the form %s has no such field; its fields: %s", name, describeForm(f.n), strings.Join(names, ", "))
		return f
	}
	f.values.Set(name, value)
	return f
}

// Remove leaves the field out of the submission. Removing a hidden field
// whose name contains "csrf" (web's csrf_token) also leaves out the proof
// of origin a browser sends (Origin, Sec-Fetch-Site, Sec-Fetch-Mode):
// otherwise those headers alone pass a CSRF check such as web.CSRF, which
// asks for the token only when they are missing, and the test of a
// missing token would pass for the wrong reason. The request is then what
// a forgery without the page's token, or a browser from before 2023,
// sends: web.CSRF answers 403. Submit's header arguments put headers back
// ("Sec-Fetch-Site", "same-origin").
func (f *Form) Remove(name string) *Form {
	f.values.Del(name)
	if f.hidden[name] && strings.Contains(strings.ToLower(name), "csrf") {
		f.forged = true
	}
	return f
}

// Values returns the values the form will send.
func (f *Form) Values() url.Values { return f.values }

// Submit sends the form as a browser does: to its action (the page's
// path when it has none) with its method (GET or POST), URL-encoded, with
// the Client's cookies, Origin set to the App's origin and Sec-Fetch-Site
// to same-origin (neither after Remove of the CSRF field). header adds or
// overrides headers (name, value pairs; an empty value removes one,
// "Sec-Fetch-Site", "" for an old browser).
func (f *Form) Submit(header ...string) *Response {
	r := f.h.r
	r.t.Helper()
	if f.n == nil {
		r.t.Fatalf("plinthtest: Submit of a form that was not found")
		return r
	}
	c := r.c
	base, _ := url.Parse(c.base + r.target)
	action, err := base.Parse(attr(f.n, "action"))
	if err != nil {
		r.fail("Submit: bad form action %q: %v", attr(f.n, "action"), err)
		return r
	}
	values := url.Values{}
	for k, vs := range f.values {
		values[k] = vs
	}
	if f.submit != "" {
		k, v, _ := strings.Cut(f.submit, "=")
		if !values.Has(k) {
			values.Set(k, v)
		}
	}
	if len(header)%2 != 0 {
		r.t.Fatalf("plinthtest: Submit: headers come in name, value pairs")
		return r
	}
	hdr := append([]string{"Origin", c.base, "Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "navigate", "Accept", "text/html"}, header...)
	if f.forged {
		hdr = append([]string{"Origin", "", "Sec-Fetch-Site", "", "Sec-Fetch-Mode", "", "Accept", "text/html"}, header...)
	}
	var out *Response
	var msg string
	if strings.EqualFold(attr(f.n, "method"), "post") {
		out, msg = c.send("POST", action.RequestURI(), strings.NewReader(values.Encode()), "application/x-www-form-urlencoded", hdr)
	} else {
		action.RawQuery = values.Encode()
		out, msg = c.send("GET", action.RequestURI(), nil, "", hdr[2:]) // a GET form sends no Origin
	}
	if msg != "" {
		r.t.Fatalf("%s", msg)
		return r
	}
	return out
}

// rawText is the text of n's text children, as a textarea's value.
func rawText(n *html.Node) string {
	var b strings.Builder
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type == html.TextNode {
			b.WriteString(ch.Data)
		}
	}
	return b.String()
}
