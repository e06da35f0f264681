package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
)

// A catalogue is one JSON file per language, named after the language's
// BCP 47 tag (en.json, fr.json, pt-BR.json). It is one flat object: each
// member is a message key and its message, either a string or, for a
// message that depends on a count, an object of plural forms:
//
//	{
//	  "home.title": "Welcome",
//	  "home.greeting": "Hello, %s!",
//	  "cart.items": {"=0": "Your cart is empty", "one": "%d item", "other": "%d items"}
//	}
//
// Plural forms are CLDR's categories (zero, one, two, few, many, other;
// "other" is required) and exact values ("=0", "=1"); the form is chosen by
// the first argument that is a number.

// catalog is one language's messages.
type catalog struct {
	owner *Locales
	tag   language.Tag
	name  string // tag.String(): "en", "pt-BR"
	file  string // the file it was read from, for messages
	msgs  map[string]*message
	def   *catalog // the default language's catalogue; nil for the default itself
}

// message is one entry: a text, or plural forms.
type message struct {
	text   string         // the message, or the plural "other" form
	plural *pluralMessage // nil for a plain message
	line   int            // where it was read, for reports
}

// pluralMessage holds a message's forms.
type pluralMessage struct {
	forms [plural.Many + 1]string // by plural.Form; "" falls back to other
	exact map[int64]string        // "=0", "=1", ...
}

// lookup returns the message for key in c, or in the default language's
// catalogue when c lacks it.
func (c *catalog) lookup(key string) (*message, *catalog, bool) {
	if m, ok := c.msgs[key]; ok {
		return m, c, true
	}
	if c.def != nil {
		if m, ok := c.def.msgs[key]; ok {
			return m, c.def, true
		}
	}
	return nil, nil, false
}

// format returns m for tag with args: the plural form the first numeric
// argument selects, formatted with fmt when there are args and the text
// has a verb. Without args the text is returned as written.
func (m *message) format(tag language.Tag, args []any) string {
	s := m.text
	if m.plural != nil {
		s = m.plural.pick(tag, args)
	}
	if len(args) == 0 || strings.IndexByte(s, '%') < 0 {
		return s
	}
	return fmt.Sprintf(s, args...)
}

// pick returns the form for the first numeric argument, or other.
func (p *pluralMessage) pick(tag language.Tag, args []any) string {
	other := p.forms[plural.Other]
	for _, a := range args {
		op, ok := operandsOf(a)
		if !ok {
			continue
		}
		if op.whole && p.exact != nil {
			if s, ok := p.exact[op.exactValue]; ok {
				return s
			}
		}
		form := plural.Cardinal.MatchPlural(tag, op.i, op.v, op.w, op.f, op.t)
		if s := p.forms[form]; s != "" {
			return s
		}
		return other
	}
	return other
}

// operands are CLDR's plural operands of a number (i, v, w, f, t; see
// plural.Rules.MatchPlural), with the whole value when it has no fraction.
type operands struct {
	i, v, w, f, t int
	whole         bool
	exactValue    int64
}

// pluralMod keeps operands in range: MatchPlural accepts them modulo 10^7.
const pluralMod = 10_000_000

func operandsOf(a any) (operands, bool) {
	switch n := a.(type) {
	case int:
		return intOperands(int64(n)), true
	case int8:
		return intOperands(int64(n)), true
	case int16:
		return intOperands(int64(n)), true
	case int32:
		return intOperands(int64(n)), true
	case int64:
		return intOperands(n), true
	case uint:
		return uintOperands(uint64(n)), true
	case uint8:
		return uintOperands(uint64(n)), true
	case uint16:
		return uintOperands(uint64(n)), true
	case uint32:
		return uintOperands(uint64(n)), true
	case uint64:
		return uintOperands(n), true
	case float32:
		return floatOperands(float64(n)), true
	case float64:
		return floatOperands(n), true
	}
	return operands{}, false
}

func intOperands(n int64) operands {
	op := operands{whole: true, exactValue: n}
	switch {
	case n == math.MinInt64:
		n = math.MaxInt64
	case n < 0:
		n = -n
	}
	op.i = int(n % pluralMod)
	return op
}

func uintOperands(n uint64) operands {
	op := operands{i: int(n % pluralMod)}
	if n <= math.MaxInt64 {
		op.whole, op.exactValue = true, int64(n)
	}
	return op
}

// floatOperands reads the operands from the number's shortest decimal
// form: 1.5 has i=1, v=1, f=5; 2.0 is the integer 2.
func floatOperands(x float64) operands {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return operands{}
	}
	x = math.Abs(x)
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], x, 'f', -1, 64)
	intPart, frac, _ := bytes.Cut(s, []byte{'.'})
	op := operands{i: digitsMod(intPart)}
	if len(frac) == 0 {
		if x <= math.MaxInt64 {
			op.whole, op.exactValue = true, int64(x)
		}
		return op
	}
	op.v, op.f = len(frac), digitsMod(frac)
	trimmed := bytes.TrimRight(frac, "0")
	op.w, op.t = len(trimmed), digitsMod(trimmed)
	return op
}

// digitsMod is the decimal number d modulo 10^7.
func digitsMod(d []byte) int {
	if len(d) > 7 {
		d = d[len(d)-7:]
	}
	n := 0
	for _, c := range d {
		n = n*10 + int(c-'0')
	}
	return n
}

// pluralForms maps the names a catalogue may use to the forms.
var pluralForms = map[string]plural.Form{
	"zero": plural.Zero, "one": plural.One, "two": plural.Two,
	"few": plural.Few, "many": plural.Many, "other": plural.Other,
}

// catalogParser reads one catalogue file with a token decoder, so that
// every error can name the file and line.
type catalogParser struct {
	file string
	data []byte
	dec  *json.Decoder
}

// parseCatalog reads one catalogue file. Errors name the file and line.
func parseCatalog(file string, data []byte) (map[string]*message, error) {
	p := &catalogParser{file: file, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.fail(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, p.failAt(0, "a catalogue is a JSON object of messages")
	}
	msgs := map[string]*message{}
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.fail(err)
		}
		key := tok.(string) // the decoder gives an object's member names as strings
		at := p.dec.InputOffset()
		if _, dup := msgs[key]; dup {
			return nil, p.failAt(at, "message %q given twice", key)
		}
		if tok, err = p.dec.Token(); err != nil {
			return nil, p.fail(err)
		}
		switch v := tok.(type) {
		case string:
			msgs[key] = &message{text: v, line: lineAt(data, at)}
			continue
		case json.Delim:
			if v == '{' {
				pm, err := p.plural(key)
				if err != nil {
					return nil, err
				}
				msgs[key] = &message{text: pm.forms[plural.Other], plural: pm, line: lineAt(data, at)}
				continue
			}
		}
		return nil, p.failAt(at, "message %q: a message is a string or an object of plural forms", key)
	}
	if _, err := p.dec.Token(); err != nil { // the closing brace
		return nil, p.fail(err)
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.failAt(p.dec.InputOffset(), "text after the catalogue's object")
	}
	return msgs, nil
}

// plural reads the forms of one plural message, after its '{'.
func (p *catalogParser) plural(key string) (*pluralMessage, error) {
	pm := &pluralMessage{}
	start := p.dec.InputOffset()
	hasOther := false
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.fail(err)
		}
		name := tok.(string)
		at := p.dec.InputOffset()
		if tok, err = p.dec.Token(); err != nil {
			return nil, p.fail(err)
		}
		text, ok := tok.(string)
		if !ok {
			return nil, p.failAt(at, "message %q: plural form %q is not a string", key, name)
		}
		if form, ok := pluralForms[name]; ok {
			pm.forms[form] = text
			hasOther = hasOther || form == plural.Other
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimPrefix(name, "="), 10, 64); err == nil && strings.HasPrefix(name, "=") {
			if pm.exact == nil {
				pm.exact = map[int64]string{}
			}
			pm.exact[n] = text
			continue
		}
		return nil, p.failAt(at, "message %q: %q is not a plural form (zero, one, two, few, many, other, or =N)", key, name)
	}
	if _, err := p.dec.Token(); err != nil { // '}'
		return nil, p.fail(err)
	}
	if !hasOther {
		return nil, p.failAt(start, "message %q: plural forms need \"other\"", key)
	}
	return pm, nil
}

// fail reports a decoding error at its line.
func (p *catalogParser) fail(err error) error {
	off := p.dec.InputOffset()
	if _, ok := errors.AsType[*json.SyntaxError](err); ok {
		// The decoder's offset is the end of the last good token: the bad
		// one starts at the next byte that is not a separator.
		for off < int64(len(p.data)) && strings.IndexByte(" \t\r\n:,", p.data[off]) >= 0 {
			off++
		}
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%s:%d: %v", p.file, lineAt(p.data, off), err)
}

// failAt reports a problem at byte offset off.
func (p *catalogParser) failAt(off int64, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.file, lineAt(p.data, off), fmt.Sprintf(format, args...))
}

// lineAt returns the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}
