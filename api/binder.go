package api

import (
	"fmt"
	"net/http"
	"reflect"
	"sync"

	"github.com/plinth-go/plinth"
)

// Binder reads and validates request bodies of type T for native handlers
// (func(*plinth.Ctx) error), with the binder and validator of typed
// operations: T is what an operation's Body field would be (a struct with
// json tags, a slice, ...; a struct with form tags reads
// application/x-www-form-urlencoded and multipart/form-data), its validate
// tags are compiled once, by NewBinder, and a failure is the same problem
// an operation sends:
//
//   - 415 for a Content-Type that T does not accept (JSON: application/json,
//     application/*+json or none);
//   - 400 for malformed JSON or trailing data, 413 for a body over the
//     route's limit or too many files, 408 for a body sent too slowly (the
//     body read error, a *plinth.BodyError, goes to the App's renderer as
//     it is);
//   - 422 listing every field error ("body.email", "body.tags[1]"), one per
//     field, with the offending value; an empty body is "body: is
//     required" unless T is a pointer (then v is left nil). The problem
//     wraps the list: errors.As(err, &fieldErrors) with a FieldErrors
//     finds it.
//
// After the tag rules pass, T's Validate method runs if *T implements
// Validator. A Binder is safe for concurrent use.
type Binder[T any] struct {
	plan *inputPlan
}

// NewBinder compiles the binder of T. Of cfg it uses AllowUnknownFields
// (default false: an unknown JSON member is a 422 entry), MaxMultipartMemory
// (default 8 MiB), MaxFiles (default 16) and Message (default English);
// the zero Config gives those defaults. The body's size limit is the
// route's (plinth's, 2 MiB by default). It panics, as Register does, on a
// type it cannot bind or a bad validate or default tag: call it at startup.
func NewBinder[T any](cfg Config) *Binder[T] {
	b, err := newBinder[T](cfg)
	if err != nil {
		panic(err.Error())
	}
	return b
}

// newBinder compiles the Binder of T with cfg, or fails on a type it cannot
// bind.
func newBinder[T any](cfg Config) (*Binder[T], error) {
	t := reflect.TypeFor[T]()
	cfg = cfg.withBindDefaults()
	bc := cfg.bindConfig()
	// T is bound as the Body field of an input struct with nothing else,
	// at offset 0: the In value is the T itself.
	bp, err := buildBody(reflect.StructField{Name: "Body", Type: t}, nil)
	if err != nil {
		return nil, fmt.Errorf("api: NewBinder[%s]: %v", t, err)
	}
	return &Binder[T]{plan: &inputPlan{typ: t, body: bp, cfg: &bc}}, nil
}

// Bind reads the request body of c into *v and validates it. It returns nil,
// or the error for the handler to return (see Binder). On an error, *v may
// hold part of the body. A multipart form's files stay until the request
// ends (plinth removes them then) unless Bind fails, when they are removed
// at once.
func (b *Binder[T]) Bind(c *plinth.Ctx, v *T) error {
	return b.plan.bind(c, reflect.ValueOf(v).Elem())
}

// binders caches the Binder of each type that Bind was called with.
var binders sync.Map // reflect.Type -> binderEntry

// binderEntry is the cached Binder of one type, or why it could not be
// compiled.
type binderEntry struct {
	b   any // *Binder[T]
	err error
}

// Bind reads and validates the request body as a T with the default Config
// (unknown JSON members refused, 8 MiB of multipart in memory, 16 files,
// English messages) and returns it, or the error for the handler to return
// (see Binder for the statuses):
//
//	func createNote(c *plinth.Ctx) error {
//		in, err := api.Bind[NoteInput](c)
//		if err != nil {
//			return err
//		}
//		...
//
// T is analysed at its first call and kept in a package-level cache keyed
// by type: after that, a call costs one sync.Map look-up (a few
// nanoseconds, no allocation) more than a Binder's, plus the new(T), and
// the cache holds one compiled binder per type for the life of the process.
// A T with a bad tag makes every call fail with a 500 problem (logged with
// the reason); NewBinder reports it at startup instead, and takes a Config.
func Bind[T any](c *plinth.Ctx) (*T, error) {
	t := reflect.TypeFor[T]()
	e, ok := binders.Load(t)
	if !ok {
		b, err := newBinder[T](Config{})
		e, _ = binders.LoadOrStore(t, binderEntry{b: b, err: err})
	}
	be := e.(binderEntry)
	if be.err != nil {
		return nil, plinth.Error(http.StatusInternalServerError, "").Wrap(be.err)
	}
	v := new(T)
	if err := be.b.(*Binder[T]).Bind(c, v); err != nil {
		return nil, err
	}
	return v, nil
}
