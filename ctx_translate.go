package plinth

import "fmt"

// Translator translates message keys into the language of a request. A
// middleware installs one per request with Ctx.SetTranslator (web.Locales
// does); handlers and templates then call Ctx.T and Ctx.Language without
// knowing where the messages come from.
//
// One Translator serves every request: it receives the Ctx, so that it can
// work out the request's language the first time it is asked (and keep it
// on the Ctx, with a Key) rather than on every request. Its methods are
// called from the request's goroutine only, but for many requests at once.
type Translator interface {
	// Translate returns the message for key in the request's language,
	// formatted with args. A key it does not know should come back as
	// itself, so that a missing message shows what is missing.
	Translate(c *Ctx, key string, args ...any) string
	// Language returns the request's language as a BCP 47 tag ("en",
	// "fr-CA"), for <html lang> and Content-Language.
	Language(c *Ctx) string
}

// translatorID marks the Translator among the Ctx's typed values (see
// Key): requests that set none carry nothing, and setting one is free
// once the pooled Ctx has held a value.
var translatorID = &keyID{name: "plinth.Translator"}

// SetTranslator installs t as the request's Translator, for T and Language;
// nil removes it. It allocates nothing when t is a pointer.
func (c *Ctx) SetTranslator(t Translator) {
	if t == nil {
		c.setLocal(translatorID, nil)
		return
	}
	c.setLocal(translatorID, t)
}

// Translator returns the request's Translator, or nil when no middleware
// installed one.
func (c *Ctx) Translator() Translator {
	t, _ := c.getLocal(translatorID).(Translator)
	return t
}

// T returns the message for key in the request's language, formatted with
// args (fmt verbs: "%d items"), from the Translator a middleware installed.
// Without one it returns key itself, formatted with args if there are any,
// so that code using T runs, untranslated, in an App that has no
// catalogue. A translated message without args allocates nothing with
// web.Locales.
func (c *Ctx) T(key string, args ...any) string {
	if t := c.Translator(); t != nil {
		return t.Translate(c, key, args...)
	}
	if len(args) == 0 {
		return key
	}
	// A copy, so that go vet does not take T for a printf wrapper: a key is
	// a name for a message, and vet's "arguments but no formatting
	// directives" would flag every c.T("items.count", n).
	format := key
	return fmt.Sprintf(format, args...)
}

// Language returns the request's language as its Translator decides it (a
// BCP 47 tag such as "en" or "fr-CA"), or "" when no Translator is
// installed.
func (c *Ctx) Language() string {
	if t := c.Translator(); t != nil {
		return t.Language(c)
	}
	return ""
}
