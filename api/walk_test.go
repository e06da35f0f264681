package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

type walkInner struct {
	S string   `json:"s"`
	N int8     `json:"n"`
	L []uint16 `json:"l"`
}

type walkProbe struct {
	Str   string            `json:"str"`
	Int   int               `json:"int"`
	I8    int8              `json:"i8"`
	U8    uint8             `json:"u8"`
	U32   uint32            `json:"u32"`
	F32   float32           `json:"f32"`
	F64   float64           `json:"f64"`
	Bool  bool              `json:"bool"`
	Ptr   *int              `json:"ptr"`
	List  []string          `json:"list"`
	Arr   [2]int            `json:"arr"`
	Map   map[string]int    `json:"map"`
	Sub   *walkInner        `json:"sub"`
	Subs  []walkInner       `json:"subs"`
	When  time.Time         `json:"when"`
	Raw   json.RawMessage   `json:"raw"`
	Any   any               `json:"any"`
	Bytes []byte            `json:"bytes"`
	Num   json.Number       `json:"num"`
	Deep  map[string][]bool `json:"deep"`
	walkEmbedded
}

type walkEmbedded struct {
	Emb string `json:"emb"`
}

// FuzzWalkerAgreesWithEncodingJSON: on any syntactically valid body, the
// walker finds a value of the wrong type or an unknown member exactly when
// encoding/json refuses the body, so that the error path reports what the
// decoder refused, and nothing it accepted.
func FuzzWalkerAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"str":1}`, `{"int":1.5,"i8":200,"u8":-1}`, `{"f32":1e40}`, `{"list":[1]}`,
		`{"arr":[1,"x",3]}`, `{"arr":[1,2,"x"]}`, `{"map":{"a":"b"}}`, `{"sub":{"n":128,"l":[70000]}}`, `{"subs":[{"s":2}]}`,
		`{"when":"x"}`, `{"when":5}`, `{"raw":{"a":[1]},"any":[{}]}`, `{"bytes":"!!"}`, `{"bytes":[1,2]}`, `{"num":"12"}`,
		`{"num":"x"}`, `{"num":true}`, `{"deep":{"a":[true,1]}}`, `{"EMB":3}`, `{"Str":"x","STR":2}`, `{"zzz":1}`, `[]`, `"x"`,
		`null`, `{"ptr":null,"sub":null}`, `{"str":"\u00e9\"","int":-0}`, `{"int":1e2}`} {
		f.Add(s)
	}
	v := newValidators(false)
	t := reflect.TypeFor[walkProbe]()
	if _, err := v.compile(t, nil, asValue); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(tt *testing.T, body string) {
		data := []byte(body)
		if !json.Valid(data) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err := dec.Decode(new(walkProbe))
		w := walkJSON(data, t, v, false, "body")
		if (err == nil) != (len(w.errs) == 0) {
			tt.Fatalf("%s: encoding/json says %v, the walker %+v", body, err, w.errs)
		}
		if len(w.errs) > 0 {
			// What the walker refused is all that encoding/json refused:
			// with it replaced by null and unknown members allowed, the
			// body decodes.
			if err := json.Unmarshal(w.patched(), new(walkProbe)); err != nil {
				tt.Fatalf("%s: patched %s still fails: %v", body, w.patched(), err)
			}
		}
	})
}
