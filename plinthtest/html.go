package plinthtest

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/net/html"
)

// HTML parses the body as HTML for DOM assertions. A body that is not
// text/html fails the test.
func (r *Response) HTML() *HTML {
	r.t.Helper()
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		first := r.buf.Bytes()
		if len(first) > 64 {
			first = first[:64]
		}
		r.fail("HTML: the body is not HTML (content type %q, first bytes %q)", ct, first)
	}
	root, err := html.Parse(bytes.NewReader(r.buf.Bytes()))
	if err != nil {
		r.fail("HTML: %v", err)
	}
	return &HTML{r: r, root: root}
}

// HTML is a parsed HTML page.
type HTML struct {
	r    *Response
	root *html.Node
}

// Response returns the response, for further assertions.
func (h *HTML) Response() *Response { return h.r }

// Find returns the first element that selector matches, failing the test
// when none does. A selector is a minimal CSS selector: compounds of a tag
// name, #id, .class, [attr] and [attr=value] (quotes optional), separated
// by spaces for descendants: "form#login", "#email", "nav a.active",
// "input[name=csrf_token]".
func (h *HTML) Find(selector string) *Element {
	h.r.t.Helper()
	all := h.FindAll(selector)
	if len(all) == 0 {
		h.r.fail("HTML: nothing matches %q", selector)
		return &Element{h: h}
	}
	return all[0]
}

// FindAll returns every element that selector matches, in document order
// (none is no failure). A bad selector fails the test.
func (h *HTML) FindAll(selector string) []*Element {
	h.r.t.Helper()
	sel, err := parseSelector(selector)
	if err != nil {
		h.r.t.Fatalf("plinthtest: selector %q: %v", selector, err)
		return nil
	}
	var out []*Element
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && sel.matches(n) {
			out = append(out, &Element{h: h, n: n})
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(h.root)
	return out
}

// Count asserts that selector matches n elements.
func (h *HTML) Count(selector string, n int) *HTML {
	h.r.t.Helper()
	if got := len(h.FindAll(selector)); got != n {
		h.r.fail("HTML: %q matches %d elements, want %d", selector, got, n)
	}
	return h
}

// Element is an element of a page.
type Element struct {
	h *HTML
	n *html.Node
}

// Node returns the element's node (nil after a failed Find).
func (e *Element) Node() *html.Node { return e.n }

// Attr returns the value of the attribute name, "" when it has none.
func (e *Element) Attr(name string) string {
	if e.n == nil {
		return ""
	}
	return attr(e.n, name)
}

// Text returns the element's text, its spaces collapsed.
func (e *Element) Text() string {
	if e.n == nil {
		return ""
	}
	return strings.Join(strings.Fields(text(e.n)), " ")
}

// HasText asserts that the element's text contains s.
func (e *Element) HasText(s string) *Element {
	e.h.r.t.Helper()
	if got := e.Text(); !strings.Contains(got, s) {
		e.h.r.fail("HTML: <%s> has text %q, want it to contain %q", e.tag(), got, s)
	}
	return e
}

// HasAttr asserts that the element's attribute name is value.
func (e *Element) HasAttr(name, value string) *Element {
	e.h.r.t.Helper()
	if got := e.Attr(name); got != value {
		e.h.r.fail("HTML: <%s %s=%q>, want %q", e.tag(), name, got, value)
	}
	return e
}

func (e *Element) tag() string {
	if e.n == nil {
		return "nothing"
	}
	return e.n.Data
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == name {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, name string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == name {
			return true
		}
	}
	return false
}

func text(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		b.WriteString(text(ch))
		b.WriteByte(' ')
	}
	return b.String()
}

// selector is a chain of compounds, each a descendant of the one before.
type selector []compound

type compound struct {
	tag     string
	id      string
	classes []string
	attrs   [][2]string // name, value; value "\x00" means present
}

func parseSelector(s string) (selector, error) {
	var sel selector
	for _, part := range strings.Fields(s) {
		var c compound
		i := 0
		readName := func() string {
			j := i
			for j < len(part) && isNameByte(part[j]) {
				j++
			}
			name := part[i:j]
			i = j
			return name
		}
		c.tag = strings.ToLower(readName())
		for i < len(part) {
			switch part[i] {
			case '#':
				i++
				if c.id = readName(); c.id == "" {
					return nil, fmt.Errorf("# without an id")
				}
			case '.':
				i++
				cl := readName()
				if cl == "" {
					return nil, fmt.Errorf(". without a class")
				}
				c.classes = append(c.classes, cl)
			case '[':
				end := strings.IndexByte(part[i:], ']')
				if end < 0 {
					return nil, fmt.Errorf("[ without ]")
				}
				in := part[i+1 : i+end]
				i += end + 1
				name, val, ok := strings.Cut(in, "=")
				if !ok {
					val = "\x00"
				} else {
					val = strings.Trim(val, `"'`)
				}
				if name == "" {
					return nil, fmt.Errorf("[] without an attribute name")
				}
				c.attrs = append(c.attrs, [2]string{name, val})
			default:
				return nil, fmt.Errorf("unexpected %q (supported: tag, #id, .class, [attr], [attr=value], spaces)", part[i])
			}
		}
		sel = append(sel, c)
	}
	if len(sel) == 0 {
		return nil, fmt.Errorf("empty selector")
	}
	return sel, nil
}

func (c compound) matches(n *html.Node) bool {
	if c.tag != "" && c.tag != "*" && n.Data != c.tag {
		return false
	}
	if c.id != "" && attr(n, "id") != c.id {
		return false
	}
	for _, cl := range c.classes {
		found := false
		for _, have := range strings.Fields(attr(n, "class")) {
			if have == cl {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	for _, a := range c.attrs {
		if a[1] == "\x00" {
			if !hasAttr(n, a[0]) {
				return false
			}
		} else if attr(n, a[0]) != a[1] || !hasAttr(n, a[0]) {
			return false
		}
	}
	return true
}

// matches reports whether n matches the last compound and its ancestors
// the ones before, in order.
func (s selector) matches(n *html.Node) bool {
	if !s[len(s)-1].matches(n) {
		return false
	}
	i := len(s) - 2
	for p := n.Parent; p != nil && i >= 0; p = p.Parent {
		if p.Type == html.ElementNode && s[i].matches(p) {
			i--
		}
	}
	return i < 0
}

// isNameByte reports whether b may be part of a tag, id, class or
// attribute name in a selector.
func isNameByte(b byte) bool {
	return b == '-' || b == '_' || b == '*' || b == ':' || b >= 0x80 ||
		'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}
