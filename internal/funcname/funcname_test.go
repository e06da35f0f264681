package funcname

import (
	"strings"
	"testing"
)

func named() {}

func TestOf(t *testing.T) {
	closure := func() {}
	for _, tc := range []struct {
		f    any
		want string
	}{
		{named, "github.com/plinth-go/plinth/internal/funcname.named"},
		{closure, "github.com/plinth-go/plinth/internal/funcname.TestOf.func1"},
		{strings.ToUpper, "strings.ToUpper"},
	} {
		if got := Of(tc.f); got != tc.want {
			t.Errorf("Of = %q, want %q", got, tc.want)
		}
	}
}
