package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// world is one validated world object.
type world struct {
	ID           int
	RandomNumber int
}

// clampCases are the parameter values TFB tries on the array tests and the
// number of objects each must return. A nil value means the parameter is
// absent.
var clampCases = []struct {
	value *string
	want  int
}{
	{ptr("2"), 2},
	{ptr("0"), 1},
	{ptr("foo"), 1},
	{ptr("501"), 500},
	{ptr(""), 1},
	{nil, 1},
}

func ptr(s string) *string { return &s }

// checkDB verifies /db: one world object.
func (v *verifier) checkDB(ctx context.Context, f *findings, t *testType) {
	r := v.fetch(ctx, f, t, t.sample)
	if r == nil {
		return
	}
	body := bytes.TrimSpace(r.body)
	if len(body) == 0 || body[0] != '{' {
		f.fail("body", r.url, `expected a JSON object {"id":N,"randomNumber":M}, got %s`, excerpt(r.body))
		return
	}
	if _, warns, err := parseWorld(body); err != nil {
		f.fail("body", r.url, "%v", err)
	} else {
		for _, w := range warns {
			f.warn("body", r.url, "%s", w)
		}
	}
	f.pass("body", r.url, `{"id":N,"randomNumber":M} with both in 1..10000`)
}

// checkArray verifies an array test (queries, updates, cached-queries) with
// every clamping case of the row-count parameter.
func (v *verifier) checkArray(ctx context.Context, f *findings, t *testType) {
	for _, c := range clampCases {
		path := t.path
		if c.value != nil {
			path += "?" + t.param + "=" + *c.value
		}
		r := v.fetch(ctx, f, t, path)
		if r == nil {
			continue
		}
		objs, warns, err := parseWorlds(r.body)
		if err != nil {
			f.fail("body", r.url, "%v", err)
			continue
		}
		for _, w := range warns {
			f.warn("body", r.url, "%s", w)
		}
		if len(objs) != c.want {
			f.fail("clamp", r.url, "expected %d objects (%s), got %d", c.want, clampRule(c.value), len(objs))
		}
	}
	url := v.cfg.BaseURL + t.path
	f.pass("body", url, `arrays of {"id":N,"randomNumber":M} with both in 1..10000`)
	f.pass("clamp", url+"?"+t.param+"=", "2->2, 0->1, foo->1, 501->500, empty->1, missing->1")
}

func clampRule(v *string) string {
	switch {
	case v == nil:
		return "parameter missing"
	case *v == "":
		return "parameter empty"
	}
	n, err := strconv.Atoi(*v)
	switch {
	case err != nil:
		return "not an integer"
	case n < 1:
		return "below 1"
	case n > 500:
		return "above 500"
	}
	return "in range"
}

// parseWorlds decodes a JSON array of world objects.
func parseWorlds(body []byte) ([]world, []string, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(body, &raws); err != nil {
		return nil, nil, fmt.Errorf("expected a JSON array of world objects, got %s: %v", excerpt(body), err)
	}
	objs := make([]world, 0, len(raws))
	var warns []string
	for i, raw := range raws {
		w, ws, err := parseWorld(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("element %d: %v", i, err)
		}
		if len(warns) == 0 {
			warns = ws // one example is enough
		}
		objs = append(objs, w)
	}
	return objs, warns, nil
}

// parseWorld decodes {"id":N,"randomNumber":M}: both integers in 1..10000.
// Keys are matched case-insensitively as TFB does, with a warning when they
// are not spelled id and randomNumber.
func parseWorld(raw []byte) (world, []string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return world{}, nil, fmt.Errorf(`expected an object {"id":N,"randomNumber":M}, got %s`, excerpt(raw))
	}
	var warns []string
	var w world
	for _, k := range []struct {
		name string
		dst  *int
	}{{"id", &w.ID}, {"randomNumber", &w.RandomNumber}} {
		val, key, ok := lookupFold(fields, k.name)
		if !ok {
			return world{}, nil, fmt.Errorf("object %s has no %q key", excerpt(raw), k.name)
		}
		if key != k.name {
			warns = append(warns, fmt.Sprintf("key %q should be spelled %q", key, k.name))
		}
		n, err := strconv.Atoi(string(bytes.TrimSpace(val)))
		if err != nil {
			return world{}, nil, fmt.Errorf("%s = %s in %s: expected a JSON integer", k.name, val, excerpt(raw))
		}
		if n < 1 || n > 10000 {
			return world{}, nil, fmt.Errorf("%s = %d in %s: expected 1..10000", k.name, n, excerpt(raw))
		}
		*k.dst = n
	}
	if len(fields) != 2 {
		warns = append(warns, fmt.Sprintf("object %s has keys besides id and randomNumber", excerpt(raw)))
	}
	return w, warns, nil
}

func lookupFold(m map[string]json.RawMessage, name string) (json.RawMessage, string, bool) {
	if v, ok := m[name]; ok {
		return v, name, true
	}
	for k, v := range m {
		if strings.EqualFold(k, name) {
			return v, k, true
		}
	}
	return nil, "", false
}
