package api

import (
	"reflect"
	"strconv"
	"testing"
	"unsafe"
)

// The two places where the package uses unsafe (the compiled checks,
// validate.go, and the parameter parsers, scalar.go) each have a benchmark
// here that times what unsafe buys on the hot path: a field reached by an
// offset addition, against the reflect.Value alternative (Field, then a
// Set or an Addr). Whole-request figures, taken against a reflect-only
// version of the package, are in the doc comments of check and parseFunc.
//
//	go test ./api -run '^$' -bench 'FieldAccess' -benchtime 200ms -count 6 >fa.txt
//	benchstat -col /access fa.txt

// accessUser is the 5-field body of the validated-json scenario.
type accessUser struct {
	Name  string `json:"name" validate:"required,minLength=1,maxLength=50"`
	Email string `json:"email" validate:"required,format=email"`
	Age   int    `json:"age" validate:"min=0,max=150"`
	Role  string `json:"role" validate:"required,enum=admin|user|guest"`
	Code  string `json:"code" validate:"required,pattern=^[A-Z]{3}$"`
}

// BenchmarkValidateFieldAccess validates a valid accessUser with its
// compiled struct check (each field at an offset, read through a typed
// pointer), and with the reflect.Value form of the same checks (each field
// by reflect.Value.Field, read by String or Int), as a reflect-only
// validator compiles them.
func BenchmarkValidateFieldAccess(b *testing.B) {
	v := newValidators(false)
	c, err := v.compile(reflect.TypeFor[accessUser](), nil, asValue)
	if err != nil {
		b.Fatal(err)
	}
	rc := reflectStructCheck(v.structs[reflect.TypeFor[accessUser]()])
	u := &accessUser{Name: "Ada Lovelace", Email: "ada@example.com", Age: 36, Role: "admin", Code: "ABC"}
	b.Run("access=offset", func(b *testing.B) {
		for b.Loop() {
			if !c(unsafe.Pointer(u), nil) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("access=reflect", func(b *testing.B) {
		for b.Loop() {
			if !rc(reflect.ValueOf(u).Elem()) {
				b.Fatal("invalid")
			}
		}
	})
}

// reflectStructCheck compiles the fast pass of sc's string and int fields
// to checks over reflect.Value: a closure per field, called with the field
// that reflect.Value.Field returns, as validate.go's checks are called with
// a pointer.
func reflectStructCheck(sc *structCheck) func(v reflect.Value) bool {
	type fieldFn struct {
		index int
		check func(v reflect.Value) bool
	}
	var fields []fieldFn
	for _, f := range sc.active {
		r := f.rules
		check := func(v reflect.Value) bool {
			s := v.String()
			if s == "" {
				return !r.required
			}
			code, _ := r.stringFails(s)
			return code == ""
		}
		if f.typ.Kind() == reflect.Int {
			enum, _ := r.numberEnum()
			check = func(v reflect.Value) bool {
				x := float64(v.Int())
				code, _ := r.numberFails(x, enum)
				return !(r.required && x == 0) && code == ""
			}
		}
		fields = append(fields, fieldFn{f.sf.Index[0], check})
	}
	return func(v reflect.Value) bool {
		for i := range fields {
			if !fields[i].check(v.Field(fields[i].index)) {
				return false
			}
		}
		return true
	}
}

// accessIn has a parameter from every source, as BenchmarkBindParams.
type accessIn struct {
	ID    int    `path:"id" validate:"min=1"`
	Limit int    `query:"limit" default:"10" validate:"min=1,max=100"`
	Sort  string `query:"sort" validate:"enum=asc|desc"`
	Trace string `header:"X-Trace" validate:"maxLength=32"`
	Sess  string `cookie:"sid" validate:"minLength=2"`
}

// BenchmarkBindFieldAccess parses the five parameters of accessIn and runs
// their checks' fast pass: with the package's parsers (a typed store at an
// offset), and with reflect.Value parsers (Field, then SetInt or
// SetString), as a reflect-only binder would.
func BenchmarkBindFieldAccess(b *testing.B) {
	ip, err := buildInput(&bindConfig{}, reflect.TypeFor[accessIn]())
	if err != nil {
		b.Fatal(err)
	}
	vals := []string{"42", "20", "asc", "abc123", "s3"}
	reflectSet := []func(reflect.Value, string) error{
		func(v reflect.Value, s string) error { return setIntValue(v, s) },
		func(v reflect.Value, s string) error { return setIntValue(v, s) },
		func(v reflect.Value, s string) error { v.SetString(s); return nil },
		func(v reflect.Value, s string) error { v.SetString(s); return nil },
		func(v reflect.Value, s string) error { v.SetString(s); return nil },
	}
	in := new(accessIn)
	b.Run("access=offset", func(b *testing.B) {
		for b.Loop() {
			base := unsafe.Pointer(in)
			for i, p := range ip.params {
				if p.parse(unsafe.Add(base, p.offset), vals[i]) != nil {
					b.Fatal("parse")
				}
			}
			if !ip.passes(base, nil) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("access=reflect", func(b *testing.B) {
		for b.Loop() {
			rv := reflect.ValueOf(in).Elem()
			for i, p := range ip.params {
				if reflectSet[i](rv.Field(p.field.Index[0]), vals[i]) != nil {
					b.Fatal("parse")
				}
			}
			if !ip.passes(unsafe.Pointer(in), nil) {
				b.Fatal("invalid")
			}
		}
	})
}

// setIntValue is the reflect.Value parser of an int.
func setIntValue(v reflect.Value, s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return err
	}
	v.SetInt(n)
	return nil
}
