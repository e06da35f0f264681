package suite

import (
	"fmt"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
)

// Check reports how the response in w (written with Capture set) differs
// from what rq expects, or nil.
func (rq Request) Check(w *ResponseWriter) error {
	return rq.CheckResponse(w.Status(), w.Header(), w.Body)
}

// CheckResponse reports how a response differs from what rq expects, or nil.
func (rq Request) CheckResponse(status int, header http.Header, body []byte) error {
	var errs []string
	if status != rq.Status {
		errs = append(errs, fmt.Sprintf("status %d, want %d", status, rq.Status))
	}
	if rq.Body != "" {
		if got := strings.TrimSuffix(string(body), "\n"); got != rq.Body {
			errs = append(errs, fmt.Sprintf("body %q, want %q", got, rq.Body))
		}
	}
	if rq.ContentType != "" {
		ct := header.Get("Content-Type")
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || !strings.EqualFold(mt, rq.ContentType) {
			errs = append(errs, fmt.Sprintf("Content-Type %q, want %s", ct, rq.ContentType))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(rq.Headers)) {
		want, got := rq.Headers[k], header.Values(k)
		switch {
		case len(got) != 1:
			errs = append(errs, fmt.Sprintf("%d %s headers %q, want one", len(got), k, got))
		case want == AnyValue && got[0] == "", want != AnyValue && got[0] != want:
			errs = append(errs, fmt.Sprintf("%s %q, want %q", k, got[0], want))
		}
	}
	if errs == nil {
		return nil
	}
	return fmt.Errorf("%s %s: %s", rq.Method, rq.Path, strings.Join(errs, "; "))
}
