package web

import "github.com/plinth-go/plinth"

// flashKey is the session value holding the pending flash messages.
const flashKey = "_flash"

// Flash is a message kept in the session for the next page that shows it:
// "Saved.", "Wrong email or password.".
type Flash struct {
	Kind    string `json:"kind"` // "info", "success", "error": the application's choice, for styling
	Message string `json:"message"`
}

// AddFlash keeps a message in the request's session for the next page that
// reads the flashes, typically the one a redirect leads to. It fails only
// when the session cannot be had (see SessionOf).
func AddFlash(c *plinth.Ctx, kind, message string) error {
	sess, err := SessionOf(c)
	if err != nil {
		return err
	}
	list, _ := Get[[]Flash](sess, flashKey)
	sess.Put(flashKey, append(list, Flash{Kind: kind, Message: message}))
	return nil
}

// FlashesOf returns the request's flash messages and removes them from the
// session: each is read once. Without a session, or with none pending, it
// returns nil and changes nothing (a page that shows flashes creates no
// session). {{ flashes }} in templates calls it.
func FlashesOf(c *plinth.Ctx) []Flash {
	sess, err := SessionOf(c)
	if err != nil || !sess.Has(flashKey) {
		return nil
	}
	list, _ := Pop[[]Flash](sess, flashKey)
	return list
}

// peekFlashes returns the request's flash messages and leaves them in the
// session, for a render that removes them only once it succeeded
// (consumeFlashes): a page that fails does not lose them.
func peekFlashes(c *plinth.Ctx) []Flash {
	sess, err := SessionOf(c)
	if err != nil || !sess.Has(flashKey) {
		return nil
	}
	list, _ := Get[[]Flash](sess, flashKey)
	return list
}

// consumeFlashes removes the flash messages peekFlashes returned.
func consumeFlashes(c *plinth.Ctx) {
	if sess, err := SessionOf(c); err == nil {
		sess.Delete(flashKey)
	}
}
