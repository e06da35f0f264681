package verify

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// checkFortunes verifies /fortunes: the HTML structure, the exact 13 rows,
// their order and their escaping.
func (v *verifier) checkFortunes(ctx context.Context, f *findings, t *testType) {
	r := v.fetch(ctx, f, t, t.sample)
	if r == nil {
		return
	}
	checkFortunesBody(f, r.url, r.body, expectedFortunes(v.cfg.Fortunes))
}

// checkFortunesBody judges a fortunes page against the expected rows (already
// sorted).
func checkFortunesBody(f *findings, url string, body []byte, want []Fortune) {
	if !utf8.Valid(body) {
		f.fail("body", url, "the body is not valid UTF-8")
		return
	}
	lower := bytes.ToLower(body)
	if bytes.Contains(lower, []byte("<script")) {
		f.fail("escaping", url, "the body contains a raw <script> tag: the message of fortune 11 was not HTML-escaped")
	}
	if m := bareAmpersand(body); m != "" {
		f.fail("escaping", url, "an & is not escaped: %q", m)
	}
	got, err := parseFortunesPage(string(body))
	if err != nil {
		f.fail("structure", url, "%v", err)
		return
	}
	f.pass("structure", url, "doctype, head, title Fortunes, table with header row")

	// Compare as sets first, so that a sorting mistake is reported as such.
	wantByID := map[int]string{}
	for _, w := range want {
		wantByID[w.ID] = w.Message
	}
	seen := map[int]bool{}
	for _, g := range got {
		msg, ok := wantByID[g.ID]
		switch {
		case !ok:
			f.fail("rows", url, "unexpected row id %d %q", g.ID, g.Message)
		case seen[g.ID]:
			f.fail("rows", url, "row id %d appears twice", g.ID)
		case msg != g.Message:
			f.fail("rows", url, "row id %d: expected message %q, got %q (after decoding entities)", g.ID, msg, g.Message)
		}
		seen[g.ID] = true
	}
	for _, w := range want {
		if !seen[w.ID] {
			f.fail("rows", url, "row id %d %q is missing", w.ID, w.Message)
		}
	}
	f.pass("rows", url, "the %d expected rows, including id 0 added at request time", len(want))
	for i := 1; i < len(got); i++ {
		if got[i-1].Message > got[i].Message {
			f.fail("sort", url, "rows are not sorted by message: %q (id %d) comes before %q (id %d)",
				got[i-1].Message, got[i-1].ID, got[i].Message, got[i].ID)
			break
		}
	}
	f.pass("sort", url, "sorted by message in byte order")
	f.pass("escaping", url, "< and & escaped, entities decode to the table's messages")
}

var (
	entity    = regexp.MustCompile(`^&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);`)
	htmlToken = regexp.MustCompile(`<[^<>]*>|[^<]+`)
	tagName   = regexp.MustCompile(`^<\s*(/?)\s*([!A-Za-z][A-Za-z0-9]*)`)
)

// bareAmpersand returns the context of the first & that does not start an
// entity, or "".
func bareAmpersand(body []byte) string {
	for i := bytes.IndexByte(body, '&'); i >= 0; {
		if !entity.Match(body[i:]) {
			end := min(i+20, len(body))
			return string(body[i:end])
		}
		j := bytes.IndexByte(body[i+1:], '&')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return ""
}

// parseFortunesPage reads the rows out of a fortunes page, requiring the
// exact TFB shape: whitespace between tags, tag case and tag attributes are
// ignored; any other element or text fails.
func parseFortunesPage(page string) ([]Fortune, error) {
	toks, err := tokenize(page)
	if err != nil {
		return nil, err
	}
	p := &pageParser{toks: toks}
	for _, want := range []string{"<!doctype>", "<html>", "<head>", "<title>", "Fortunes", "</title>", "</head>",
		"<body>", "<table>", "<tr>", "<th>", "id", "</th>", "<th>", "message", "</th>", "</tr>"} {
		if err := p.expect(want); err != nil {
			return nil, err
		}
	}
	var rows []Fortune
	for p.peek() == "<tr>" {
		p.next()
		if err := p.expect("<td>"); err != nil {
			return nil, err
		}
		idText := p.text()
		id, err := strconv.Atoi(idText)
		if err != nil {
			return nil, fmt.Errorf("row %d: id %q is not an integer", len(rows)+1, idText)
		}
		if err := p.expect("</td>"); err != nil {
			return nil, err
		}
		if err := p.expect("<td>"); err != nil {
			return nil, err
		}
		msg := p.text()
		for _, want := range []string{"</td>", "</tr>"} {
			if err := p.expect(want); err != nil {
				return nil, err
			}
		}
		rows = append(rows, Fortune{ID: id, Message: msg})
	}
	for _, want := range []string{"</table>", "</body>", "</html>"} {
		if err := p.expect(want); err != nil {
			return nil, err
		}
	}
	if p.pos < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q after </html>", p.toks[p.pos].show())
	}
	return rows, nil
}

// token is a normalized tag ("<tr>", "</td>", "<!doctype>") or decoded text.
type token struct {
	tag  string
	text string
}

func (t token) show() string {
	if t.tag != "" {
		return t.tag
	}
	return t.text
}

// tokenize splits page into tags and text. Whitespace-only text is dropped,
// other text is trimmed and its entities decoded.
func tokenize(page string) ([]token, error) {
	var toks []token
	for _, raw := range htmlToken.FindAllString(page, -1) {
		if !strings.HasPrefix(raw, "<") {
			text := strings.TrimSpace(raw)
			if text != "" {
				toks = append(toks, token{text: html.UnescapeString(text)})
			}
			continue
		}
		m := tagName.FindStringSubmatch(raw)
		if m == nil || !strings.HasSuffix(raw, ">") {
			return nil, fmt.Errorf("malformed tag %q", raw)
		}
		name := strings.ToLower(m[2])
		if name == "!doctype" && !strings.EqualFold(strings.Join(strings.Fields(raw[2:len(raw)-1]), " "), "doctype html") {
			return nil, fmt.Errorf("expected <!DOCTYPE html>, got %q", raw)
		}
		toks = append(toks, token{tag: "<" + m[1] + name + ">"})
	}
	if rest := htmlToken.ReplaceAllString(page, ""); rest != "" {
		return nil, fmt.Errorf("unparsable markup %q", rest)
	}
	return toks, nil
}

type pageParser struct {
	toks []token
	pos  int
}

func (p *pageParser) peek() string {
	if p.pos >= len(p.toks) {
		return ""
	}
	return p.toks[p.pos].tag
}

func (p *pageParser) next() token {
	t := p.toks[p.pos]
	p.pos++
	return t
}

// expect consumes want: a tag, or (when it does not start with <) text.
func (p *pageParser) expect(want string) error {
	if p.pos >= len(p.toks) {
		return fmt.Errorf("expected %q, the page ended", want)
	}
	t := p.next()
	if t.show() != want || (t.tag == "") != !strings.HasPrefix(want, "<") {
		return fmt.Errorf("expected %q, got %q (token %d)", want, t.show(), p.pos)
	}
	return nil
}

// text consumes a text token, or returns "" if a tag comes next.
func (p *pageParser) text() string {
	if p.pos < len(p.toks) && p.toks[p.pos].tag == "" {
		return p.next().text
	}
	return ""
}
