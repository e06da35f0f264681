package plinth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Problem is an error that becomes an RFC 9457 problem details response
// (Content-Type application/problem+json). Return one from a handler, or wrap
// one: the renderer finds it with errors.As.
type Problem struct {
	// Type is a URI reference identifying the problem type; empty means
	// "about:blank", whose title is the status text.
	Type string
	// Title is a short summary; empty means the HTTP status text.
	Title string
	// Status is the HTTP status code; 0 means 500.
	Status int
	// Detail explains this occurrence to the client. It is sent as is.
	Detail string
	// Instance is a URI reference identifying this occurrence; omitted if empty.
	Instance string
	// Extensions are extra members; keys that collide with the standard
	// members are ignored. Values are encoded with encoding/json.
	Extensions map[string]any

	cause error
}

// Error returns a Problem with the status and the detail sent to the client.
func Error(status int, detail string) *Problem {
	return &Problem{Status: status, Detail: detail}
}

// Errorf is Error with a formatted detail.
func Errorf(status int, format string, args ...any) *Problem {
	return &Problem{Status: status, Detail: fmt.Sprintf(format, args...)}
}

// BadRequest returns a 400 Problem.
func BadRequest(detail string) *Problem { return Error(http.StatusBadRequest, detail) }

// Unauthorized returns a 401 Problem.
func Unauthorized(detail string) *Problem { return Error(http.StatusUnauthorized, detail) }

// Forbidden returns a 403 Problem.
func Forbidden(detail string) *Problem { return Error(http.StatusForbidden, detail) }

// NotFound returns a 404 Problem.
func NotFound(detail string) *Problem { return Error(http.StatusNotFound, detail) }

// Conflict returns a 409 Problem.
func Conflict(detail string) *Problem { return Error(http.StatusConflict, detail) }

// With returns p with an extension member set. It modifies and returns p.
func (p *Problem) With(key string, value any) *Problem {
	if p.Extensions == nil {
		p.Extensions = map[string]any{}
	}
	p.Extensions[key] = value
	return p
}

// Wrap records err as the cause of p: errors.Is and errors.As see it, the
// logs show it, the client does not. It modifies and returns p.
func (p *Problem) Wrap(err error) *Problem {
	p.cause = err
	return p
}

// Unwrap returns the cause set by Wrap.
func (p *Problem) Unwrap() error { return p.cause }

// StatusCode returns the effective status: Status, or 500 when unset.
func (p *Problem) StatusCode() int {
	if p.Status < 100 || p.Status > 999 {
		return http.StatusInternalServerError
	}
	return p.Status
}

// Error describes the problem for logs: "404 Not Found: detail: cause".
func (p *Problem) Error() string {
	s := strconv.Itoa(p.StatusCode()) + " " + p.title()
	if p.Detail != "" {
		s += ": " + p.Detail
	}
	if p.cause != nil {
		s += ": " + p.cause.Error()
	}
	return s
}

// TitleText returns the effective title: Title, or the status text of
// StatusCode ("Not Found") when Title is empty, as the problem document
// shows it. A ProblemWriter that renders its own page reads it.
func (p *Problem) TitleText() string { return p.title() }

func (p *Problem) title() string {
	if p.Title != "" {
		return p.Title
	}
	if t := http.StatusText(p.StatusCode()); t != "" {
		return t
	}
	return "Error"
}

var problemContentType = []string{"application/problem+json"}

// appendJSON appends the problem document to b.
func (p *Problem) appendJSON(b []byte, requestID string) []byte {
	typ := p.Type
	if typ == "" {
		typ = "about:blank"
	}
	b = append(b, `{"type":`...)
	b = appendJSONString(b, typ)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, p.title())
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(p.StatusCode()), 10)
	if p.Detail != "" {
		b = append(b, `,"detail":`...)
		b = appendJSONString(b, p.Detail)
	}
	if p.Instance != "" {
		b = append(b, `,"instance":`...)
		b = appendJSONString(b, p.Instance)
	}
	if requestID != "" {
		b = append(b, `,"request_id":`...)
		b = appendJSONString(b, requestID)
	}
	if len(p.Extensions) > 0 {
		keys := make([]string, 0, len(p.Extensions))
		for k := range p.Extensions {
			switch k {
			case "type", "title", "status", "detail", "instance", "request_id":
				continue
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, err := json.Marshal(p.Extensions[k])
			if err != nil {
				continue
			}
			b = append(b, ',')
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = append(b, v...)
		}
	}
	return append(b, '}', '\n')
}

// appendJSONString appends s as a JSON string, escaping as encoding/json does
// (HTML-sensitive characters included; invalid UTF-8 becomes U+FFFD).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// writeProblem sends p as the response, through the App's ProblemWriter
// when it has one.
func (c *Ctx) writeProblem(p *Problem) {
	if c.t != nil && c.t.onProblem != nil {
		c.t.onProblem(c, p)
		return
	}
	c.WriteProblemJSON(p)
}

// WriteProblemJSON sends p as RFC 9457 problem JSON (Content-Type
// application/problem+json, the request ID as the "request_id" member),
// the built-in rendering, whatever the App's ProblemWriter: a custom
// ProblemWriter calls it to fall back to JSON. Headers that described the
// response the handler meant to send (Content-Encoding, Content-Length,
// ETag, Last-Modified) are dropped; others, such as Retry-After or Allow,
// stay. Call it only while the response has not started. It allocates
// nothing for a Problem without extensions once the Ctx's buffer has grown.
func (c *Ctx) WriteProblemJSON(p *Problem) {
	c.out = p.appendJSON(c.out[:0], c.requestID)
	h := c.w.Header()
	dropRepresentation(h)
	h["Content-Type"] = problemContentType
	c.w.WriteHeader(p.StatusCode())
	_, _ = c.w.Write(c.out)
}

// writeProblemBody sends p, using body, p's rendering without a request ID,
// when the request has none.
func (c *Ctx) writeProblemBody(p *Problem, body []byte) {
	if c.requestID != "" || c.t != nil && c.t.onProblem != nil {
		c.writeProblem(p)
		return
	}
	h := c.w.Header()
	dropRepresentation(h)
	h["Content-Type"] = problemContentType
	c.w.WriteHeader(p.StatusCode())
	_, _ = c.w.Write(body)
}

// dropRepresentation removes headers a handler may have set for the response
// it meant to send, which would mislabel the problem document sent instead.
// A compressing writer sets Content-Encoding again when it encodes the
// problem.
func dropRepresentation(h http.Header) {
	if len(h) > 0 {
		delete(h, "Content-Encoding")
		delete(h, "Content-Length")
		delete(h, "Etag")
		delete(h, "Last-Modified")
	}
}

// handleError turns err into a response, or logs it if the response has
// already started.
func (c *Ctx) handleError(err error) {
	if c.rw.status != 0 {
		level := slog.LevelWarn
		if c.requestEnded(err) {
			level = slog.LevelDebug // the client left, or the timeout layer reports it
		}
		c.logger().LogAttrs(c.req.Context(), level, "plinth: handler error after the response started",
			slog.String("pattern", c.Pattern()), slog.String("path", c.req.URL.Path), slog.Any("error", err))
		return
	}
	if c.t != nil && c.t.onError != nil {
		c.t.onError(c, err)
		return
	}
	DefaultErrorHandler(c, err)
}

// StatusClientClosedRequest is the status Plinth records (and access logs
// show) for a request whose client went away before its handler finished, as
// nginx does: nobody receives the response.
const StatusClientClosedRequest = 499

// DefaultErrorHandler is the built-in error renderer, the one an App uses
// when its ErrorHandler is nil; a custom ErrorHandler calls it to fall back
// to it. It writes err as:
//   - a failure to read the request body (*BodyError, whatever wraps it):
//     413 for a body over its limit (*http.MaxBytesError), 408 for a body
//     that arrived too slowly (os.ErrDeadlineExceeded: Config.BodyReadTimeout
//     cut it), 400 for the rest (bad chunked encoding, a client gone
//     mid-body); never logged above debug level, since the client caused it;
//   - a *Problem (found with errors.As) as itself;
//   - an *http.MaxBytesError as 413;
//   - a context error (context.Canceled, context.DeadlineExceeded) while the
//     request's own context has ended: the client went away (status 499,
//     logged at debug level) or the handler timeout fired (the timeout layer
//     answers 503 and logs it once, at warn level), so it is not a 500;
//   - anything else as a 500 whose text is logged, never sent.
//
// A Problem with status 500, or with any 5xx status and a cause
// (Problem.Wrap), is logged with its cause; a deliberate 5xx without a cause
// (a 503 from load shedding or maintenance mode) is not, so that refusals
// under overload do not flood the log.
func DefaultErrorHandler(c *Ctx, err error) {
	if be, ok := errors.AsType[*BodyError](err); ok {
		c.renderBodyError(be)
		return
	}
	if p, ok := errors.AsType[*Problem](err); ok {
		if s := p.StatusCode(); s == http.StatusInternalServerError || s > 500 && p.cause != nil {
			if c.requestEnded(err) {
				c.logEnded(err)
			} else {
				c.logError(err)
			}
		}
		c.writeProblem(p)
		return
	}
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		c.writeProblem(&Problem{Status: http.StatusRequestEntityTooLarge, Detail: "request body too large"})
		return
	}
	if c.requestEnded(err) {
		c.logEnded(err)
		if !c.TimedOut() {
			c.writeProblem(&Problem{Status: StatusClientClosedRequest, Title: "Client Closed Request"})
		}
		return
	}
	c.logError(err)
	c.writeProblem(&Problem{Status: http.StatusInternalServerError})
}

func (c *Ctx) renderBodyError(be *BodyError) {
	c.logger().LogAttrs(c.req.Context(), slog.LevelDebug, "plinth: request body not read",
		slog.String("method", c.req.Method), slog.String("pattern", c.Pattern()),
		slog.String("path", c.req.URL.Path), slog.Any("error", be.Err))
	switch {
	case isMaxBytes(be.Err):
		c.writeProblem(&Problem{Status: http.StatusRequestEntityTooLarge, Detail: "request body larger than the limit of " +
			strconv.FormatInt(maxBytesLimit(be.Err), 10) + " bytes"})
	case errors.Is(be.Err, os.ErrDeadlineExceeded):
		closeHTTP1(c.Header(), c.req)
		c.writeProblem(&Problem{Status: http.StatusRequestTimeout, Detail: "the request body arrived too slowly"})
	default:
		closeHTTP1(c.Header(), c.req)
		c.writeProblem(&Problem{Status: http.StatusBadRequest, Detail: "the request body could not be read"})
	}
}

func isMaxBytes(err error) bool {
	_, ok := errors.AsType[*http.MaxBytesError](err)
	return ok
}

func maxBytesLimit(err error) int64 {
	if e, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return e.Limit
	}
	return 0
}

// requestEnded reports whether err is the request's own context ending (the
// client went away, or the handler timeout fired) rather than a failure of
// the handler: a context error while the request's context is done. A
// context error from an operation's own deadline, with the request still
// live, is a real failure.
func (c *Ctx) requestEnded(err error) bool {
	if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	// The request's own context, as net/http made it: a context that the
	// App's middleware derived (its own timeout) ending is the server's
	// doing, not the client's.
	return c.TimedOut() || c.orig != nil && c.orig.Context().Err() != nil
}

// logEnded records a request whose context ended, once, below error level:
// a timeout is reported by the timeout layer; a client that left is debug.
func (c *Ctx) logEnded(err error) {
	if c.TimedOut() {
		return // runWithTimeout logs the 503
	}
	c.logger().LogAttrs(c.req.Context(), slog.LevelDebug, "plinth: client closed the request",
		slog.String("method", c.req.Method), slog.String("pattern", c.Pattern()),
		slog.String("path", c.req.URL.Path), slog.Int("status", StatusClientClosedRequest), slog.Any("error", err))
}

func (c *Ctx) logError(err error) {
	c.logger().LogAttrs(c.req.Context(), slog.LevelError, "plinth: handler error",
		slog.String("method", c.req.Method), slog.String("pattern", c.Pattern()),
		slog.String("path", c.req.URL.Path), slog.Any("error", err))
}

func (c *Ctx) logger() *slog.Logger {
	if c.t != nil {
		return c.t.logger
	}
	return slog.Default()
}
