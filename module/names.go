package module

import (
	"reflect"
	"runtime"
	"strings"
)

// funcName names a constructor for errors: package.Func.
func funcName(fn any) string {
	if fn == nil {
		return "a value"
	}
	f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer())
	if f == nil {
		return "a constructor"
	}
	name := f.Name()
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}
