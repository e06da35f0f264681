package engine

import "fmt"

func fmtV(v any) string { return fmt.Sprintf("%#v", v) }
