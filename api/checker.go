package api

import (
	"fmt"
	"net/http"
	"reflect"
	"unsafe"
)

// Checker validates values of a struct type T by their validate tags, with
// checks compiled once by NewChecker: the same engine that typed operations
// use, for plain handlers and other callers. A value that passes costs no
// allocation.
type Checker[T any] struct {
	check check
	msgs  messages
}

// NewChecker compiles the validate tags of T, a struct type whose JSON
// member names make the locations (below "body", see Check). Of cfg it uses Message (default nil:
// English texts); the zero Config is valid. Like NewBinder and Register, it
// panics on a type that is not a struct or a bad tag: call it at startup.
func NewChecker[T any](cfg Config) *Checker[T] {
	c, err := newChecker[T](cfg)
	if err != nil {
		panic(err.Error())
	}
	return c
}

// newChecker compiles the Checker of T, or fails on a type that is not a
// struct or a bad tag.
func newChecker[T any](cfg Config) (*Checker[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("api: NewChecker: %s is not a struct", t)
	}
	c, err := newValidators(false).compile(t, nil, asValue)
	if err != nil {
		return nil, fmt.Errorf("api: NewChecker[%s]: %v", t, err)
	}
	return &Checker[T]{check: c, msgs: messages{custom: cfg.Message}}, nil
}

// Check returns nil if v passes every rule, or every failure, located as
// the same value sent as a typed operation's or a Binder's JSON body would
// be: by JSON names below "body" ("body.email", "body.items[2].email"), so
// that a client reads one scheme of locations in every 422 problem and in
// the OpenAPI document's ErrorDetail. r is given to Config.Message; it may
// be nil.
func (c *Checker[T]) Check(r *http.Request, v *T) FieldErrors {
	if c.check == nil || c.check(unsafe.Pointer(v), nil) {
		return nil
	}
	col := &collector{msgs: c.msgs, r: r, path: append(make([]byte, 0, 64), "body"...)}
	c.check(unsafe.Pointer(v), col)
	return col.errs
}
