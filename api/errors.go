package api

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/plinth-go/plinth"
)

// FieldError is one entry of a 422 problem's "errors" array.
type FieldError struct {
	// Location names the offending input: "path.id", "query.limit",
	// "header.X-Trace", "cookie.sid", "body", "body.items[2].email".
	Location string `json:"location"`
	// Message says what is wrong, in words from Config.Message.
	Message string `json:"message"`
	// Value is the offending value: the string, number or boolean as
	// decoded, or, for a value of the wrong type, what the client sent (an
	// object or array as its JSON text). A string longer than 64 bytes is
	// cut to its first 64 bytes, at a character boundary, followed by "…",
	// so that the error stays small whatever the input. It is nil (left
	// out) for "is required", for minItems and maxItems, and for unknown
	// members.
	Value any `json:"value,omitempty"`
}

// Error returns "location: message".
func (e *FieldError) Error() string { return e.Location + ": " + e.Message }

// FieldErrors is a list of field errors; a Validate hook returns one to
// report several problems at once.
type FieldErrors []*FieldError

// Error joins the errors' texts.
func (es FieldErrors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "; ")
}

// Validator is implemented by input types (the In struct, its Body type, a
// Binder's T) that check rules spanning fields. Validate runs after binding, only when
// every tag rule passed, so it may rely on them. It returns nil, a
// *FieldError or FieldErrors (sent as a 422 problem listing them), a
// *plinth.Problem (sent as is), or any other error (a 422 whose detail is
// the error's text: keep it client-safe).
type Validator interface {
	Validate(ctx context.Context) error
}

// validationProblem is the 422 problem listing errs, which it wraps as
// FieldErrors so that errors.As finds them (web.BindForm does).
func validationProblem(errs []*FieldError) *plinth.Problem {
	return plinth.Error(http.StatusUnprocessableEntity, "validation failed").With("errors", errs).Wrap(FieldErrors(errs))
}

// runHook runs the Validate hook of v with the request's context and maps
// its error: nil, a 422 listing a *FieldError or FieldErrors (found with
// errors.As), a *plinth.Problem as it is, or any other error as a 422 whose
// detail is its text.
func runHook(c *plinth.Ctx, v Validator) error {
	err := v.Validate(c.Context())
	if err == nil {
		return nil
	}
	if fe, ok := errors.AsType[*FieldError](err); ok {
		return validationProblem([]*FieldError{fe})
	}
	if fes, ok := errors.AsType[FieldErrors](err); ok {
		return validationProblem(fes)
	}
	if p, ok := errors.AsType[*plinth.Problem](err); ok {
		return p
	}
	return plinth.Error(http.StatusUnprocessableEntity, err.Error()).With("errors", []*FieldError{})
}

// messages renders validation messages through Config.Message.
type messages struct {
	custom func(r *http.Request, code, param string) string
}

// text words the failure of rule code with its argument param for r: the
// custom function's text, or DefaultMessage's when it returns "" or there
// is none.
func (m messages) text(r *http.Request, code, param string) string {
	if m.custom != nil {
		if s := m.custom(r, code, param); s != "" {
			return s
		}
	}
	return DefaultMessage(code, param)
}

// DefaultMessage returns the English text of a validation error: code is
// the rule, param its argument. Config.Message may call it as a fallback.
func DefaultMessage(code, param string) string {
	switch code {
	case "required":
		return "is required"
	case "min":
		return "must be at least " + param
	case "max":
		return "must be at most " + param
	case "exclusiveMin":
		return "must be greater than " + param
	case "exclusiveMax":
		return "must be less than " + param
	case "minLength":
		return "must be at least " + param + " characters long"
	case "maxLength":
		return "must be at most " + param + " characters long"
	case "pattern":
		return "must match the pattern " + param
	case "enum":
		return "must be one of: " + strings.ReplaceAll(param, "|", ", ")
	case "format":
		return "must be a valid " + param
	case "minItems":
		return "must have at least " + param + " items"
	case "maxItems":
		return "must have at most " + param + " items"
	case "type":
		return "must be " + param
	case "unknown":
		return "is not an allowed field"
	case "files":
		return "has too many files (at most " + param + ")"
	}
	return "is invalid"
}
