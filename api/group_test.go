package api

import (
	"context"
	"slices"
	"testing"

	"github.com/plinth-go/plinth"
)

// A group's tags go to the operations registered on it (and on groups made
// from it) that have none; an operation's own tags win.
func TestGroupTags(t *testing.T) {
	app := plinth.New()
	doc := New(app, Config{Title: "t", Version: "1"})
	g := doc.Group("/orders")
	g.SetTags("orders")
	type in struct{}
	type out struct{}
	h := func(context.Context, *in) (*out, error) { return &out{}, nil }
	Register(g, Operation{Method: "GET", Path: "/a"}, h)
	Register(g, Operation{Method: "GET", Path: "/b", Tags: []string{"own"}}, h)
	Register(g.Group("/sub"), Operation{Method: "GET", Path: "/c"}, h)
	Register(doc, Operation{Method: "GET", Path: "/d"}, h)
	want := map[string][]string{"/orders/a": {"orders"}, "/orders/b": {"own"}, "/orders/sub/c": {"orders"}, "/d": nil}
	for _, o := range doc.ops {
		if w := want[o.path]; !slices.Equal(o.op.Tags, w) {
			t.Errorf("%s: tags %v, want %v", o.path, o.op.Tags, w)
		}
	}
}
