package plinth

// Key names a typed per-request value kept on the Ctx: what a middleware
// works out once (the session, the signed-in user, the negotiated language)
// and the handlers after it read. Make each Key once, at startup or in a
// package-level variable, with NewKey; the zero Key is unusable.
//
// Values are pointers, so that setting and reading one allocates nothing
// (the Ctx keeps a small list that is reused with the pooled Ctx); a request
// that sets none pays nothing. Values are dropped when the request ends: do
// not keep them beyond it, and keep nothing in them that another request
// could see.
type Key[T any] struct{ id *keyID }

type keyID struct{ name string }

// localValue is one Key's value on a Ctx.
type localValue struct {
	id *keyID
	v  any // a *T
}

// NewKey returns a new Key, distinct from every other; name appears only in
// panics and debugging output.
func NewKey[T any](name string) Key[T] { return Key[T]{id: &keyID{name: name}} }

// Name returns the name the Key was made with.
func (k Key[T]) Name() string {
	if k.id == nil {
		return ""
	}
	return k.id.name
}

// Get returns the request's value for k, or nil when none was set. It
// allocates nothing.
func (k Key[T]) Get(c *Ctx) *T {
	v, _ := c.getLocal(k.id).(*T)
	return v
}

// Set sets the request's value for k (nil removes it). It allocates nothing
// once the pooled Ctx has held as many values before. It panics on the zero
// Key.
func (k Key[T]) Set(c *Ctx, v *T) {
	if k.id == nil {
		panic("plinth: Set on a zero Key; make Keys with NewKey")
	}
	if v == nil {
		c.setLocal(k.id, nil)
		return
	}
	c.setLocal(k.id, v)
}

// getLocal returns the value kept under id, nil for none.
func (c *Ctx) getLocal(id *keyID) any {
	for i := range c.locals {
		if c.locals[i].id == id {
			return c.locals[i].v
		}
	}
	return nil
}

// setLocal keeps v under id; a nil v removes the value.
func (c *Ctx) setLocal(id *keyID, v any) {
	for i := range c.locals {
		if c.locals[i].id == id {
			if v == nil {
				last := len(c.locals) - 1
				c.locals[i] = c.locals[last]
				c.locals[last] = localValue{}
				c.locals = c.locals[:last]
				return
			}
			c.locals[i].v = v
			return
		}
	}
	if v != nil {
		c.locals = append(c.locals, localValue{id: id, v: v})
	}
}
