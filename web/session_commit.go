package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/internal/httpsyntax"
)

// errSessionNotSaved is what the handler's writes return after a failed
// save replaced its response with an error.
const errSessionNotSaved = sessionError("web: the session could not be saved; the response was replaced by an error")

// sessionWriter saves the session when the response starts: the cookie can
// only go out with the headers.
type sessionWriter struct {
	sess        *Session
	next        http.ResponseWriter
	writingFail bool // the error replacing the response is being written
}

func (w *sessionWriter) Header() http.Header { return w.next.Header() }

func (w *sessionWriter) WriteHeader(code int) {
	if code >= 100 && code < 200 {
		w.next.WriteHeader(code) // informational: the final response comes later
		return
	}
	if w.start() {
		w.next.WriteHeader(code)
	}
}

func (w *sessionWriter) Write(b []byte) (int, error) {
	if !w.start() {
		return 0, errSessionNotSaved
	}
	return w.next.Write(b)
}

// WriteString writes s without copying it to a []byte when the writer
// beneath can do the same (the Ctx's can).
func (w *sessionWriter) WriteString(s string) (int, error) {
	if !w.start() {
		return 0, errSessionNotSaved
	}
	return io.WriteString(w.next, s)
}

// Flush starts the response (saving the session) and flushes it.
func (w *sessionWriter) Flush() {
	if w.start() {
		_ = http.NewResponseController(w.next).Flush()
	}
}

// Unwrap gives http.ResponseController the writer beneath.
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.next }

// start saves the session before the response starts, and reports whether
// the handler's response may go out: false when the save failed and an
// error was sent instead.
func (w *sessionWriter) start() bool {
	sess := w.sess
	if w.writingFail {
		return true
	}
	if sess.failed {
		return false
	}
	if sess.committed {
		return true
	}
	if err := sess.commit(); err != nil {
		sess.failed = true
		w.writingFail = true
		sess.c.WriteError(err)
		w.writingFail = false
		return false
	}
	return true
}

// end finishes the request's use of the session, after the handler: saves
// it if nothing was written (an error about to be rendered, a handler that
// wrote nothing), and puts back the writer it replaced.
func (sess *Session) end() error {
	c := sess.c
	if c.Writer() == &sess.w {
		c.SetWriter(sess.w.next)
	}
	switch {
	case sess.failed:
		return nil
	case sess.committed || c.Written():
		if sess.pending() {
			sess.logger().LogAttrs(c.Context(), slog.LevelWarn,
				"web: session changed after the response started; the change is not saved",
				slog.String("pattern", c.Pattern()), slog.String("request_id", c.RequestID()))
		}
		return nil
	}
	return sess.commit()
}

// pending reports whether the session has changes a commit would save.
func (sess *Session) pending() bool {
	return sess.changed || sess.renewed || sess.destroyed || sess.oldID != ""
}

// commit saves the session and sets its cookie as needed.
func (sess *Session) commit() error {
	sess.committed = true
	if sess.loadErr != nil {
		return nil
	}
	set := &sess.s.set
	c := sess.c
	h := c.Header()
	// The response depends on the session (who is signed in, a flash): a
	// cache must not give it to another user (Vary: Cookie), nor show it
	// again after sign-out, when the browser goes Back (no-store: history
	// navigation ignores no-cache).
	varyCookie.Add(h)
	if _, ok := h["Cache-Control"]; !ok {
		h["Cache-Control"] = noStore
	}
	if sess.oldID != "" {
		if err := sess.storeDelete(sess.oldID); err != nil {
			return storeError(err)
		}
		sess.oldID = ""
	}
	now := set.now().Unix()
	touch := !sess.changed && !sess.renewed && sess.data != nil &&
		now-sess.touched >= int64(set.touchEvery/time.Second)
	if !sess.changed && !sess.renewed && !touch {
		if sess.destroyed {
			sess.destroyed = false
			if sess.hadCookie {
				sess.writeCookie(h, "", -1)
			}
		}
		return nil
	}
	sess.decode()
	if len(sess.vals) == 0 && !sess.renewed {
		// Emptied: nothing to keep.
		if sess.id != "" {
			if err := sess.storeDelete(sess.id); err != nil {
				return storeError(err)
			}
			sess.id = ""
		}
		if sess.hadCookie {
			sess.writeCookie(h, "", -1)
		}
		sess.changed, sess.destroyed = false, false
		return nil
	}
	sess.touched = now
	end := sess.created + int64(set.lifetime/time.Second)
	expiry := end
	if set.idle > 0 {
		expiry = min(expiry, now+int64(set.idle/time.Second))
	}
	var err error
	sess.buf, err = appendEncoded(sess.buf[:0], sess.created, sess.touched, sess.vals)
	if err != nil {
		return plinth.Error(http.StatusInternalServerError, "").Wrap(err)
	}
	maxAge := int(end - now)
	if set.cookie != nil {
		sealed, err := set.cookie.seal(set.name, sess.buf)
		if err != nil {
			return plinth.Error(http.StatusInternalServerError, "").Wrap(err)
		}
		if size := len(sess.cookieName()) + 1 + len(sealed); size > MaxCookieSize {
			return plinth.Error(http.StatusInternalServerError, "").Wrap(&CookieTooLargeError{Size: size})
		}
		sess.writeCookie(h, sealed, maxAge)
	} else {
		ctx := sess.saveContext()
		if sess.id == "" {
			// A new ID: the first save of a session, or a renewal.
			sess.id = newID()
			if sess.renewed {
				ctx = withRenewed(ctx) // the memory store evicts it last
			}
			exp := time.Unix(expiry, 0)
			err = set.store.Create(ctx, sess.id, sess.buf, exp)
			if err != nil {
				err = sess.retryStore(ctx, nil, err, func(ctx context.Context) error {
					return set.store.Create(ctx, sess.id, sess.buf, exp)
				})
			}
			if err != nil {
				sess.id = ""
				return storeError(err)
			}
			sess.writeCookie(h, sess.id, maxAge)
		} else {
			// An existing ID is only ever updated: if it was deleted
			// meanwhile (a sign-out by another request, with a copy of the
			// cookie) or expired, it stays gone, and so does this
			// request's change to it.
			var ok bool
			exp := time.Unix(expiry, 0)
			ok, err = set.store.Update(ctx, sess.id, sess.buf, exp)
			if err != nil {
				err = sess.retryStore(ctx, nil, err, func(ctx context.Context) error {
					var uerr error
					ok, uerr = set.store.Update(ctx, sess.id, sess.buf, exp)
					return uerr
				})
			}
			if err != nil {
				return storeError(err)
			}
			if !ok {
				sess.id = ""
				if sess.hadCookie {
					sess.writeCookie(h, "", -1)
				}
			}
		}
	}
	sess.changed, sess.renewed, sess.destroyed = false, false, false
	return nil
}

// storeDelete deletes id from the store, asking again while it fails
// within the store's deadline (retryStore).
func (sess *Session) storeDelete(id string) error {
	store, ctx := sess.s.set.store, sess.saveContext()
	err := store.Delete(ctx, id)
	if err != nil {
		err = sess.retryStore(ctx, nil, err, func(ctx context.Context) error { return store.Delete(ctx, id) })
	}
	return err
}

// saveContext is the context of the store calls that save: the request's
// values without its cancellation, so that the handler's changes are saved
// even when its client has gone or its deadline passed (the timeout's 503
// starts the response, and so the commit): what the handler did elsewhere
// (a sign-in recorded, an order placed) happened, and its session should
// say so. A store that does not answer holds the request for
// SessionsConfig.StoreTimeout at most (see storeContext).
func (sess *Session) saveContext() context.Context {
	if sess.s.set.storeWait > 0 {
		return sess.storeContext()
	}
	return context.WithoutCancel(sess.c.Context())
}

// loadContext is the context of the Load: the request's own, or the
// bounded one of storeContext when there is a store timeout.
func (sess *Session) loadContext() context.Context {
	if sess.s.set.storeWait > 0 {
		return sess.storeContext()
	}
	return sess.c.Context()
}

// storeContext returns the context every store call of the request shares
// when there is a store timeout: the request's values, without its
// cancellation, and a deadline StoreTimeout after the first call, so that
// the request's calls together (a load, then a delete and a create at a
// renewal) wait on the store for StoreTimeout at most, whatever the
// request's own deadline. One context per request rather than one per call
// halves the allocations of a request that loads and saves. stopStore
// releases it.
func (sess *Session) storeContext() context.Context {
	if sess.storeCtx == nil {
		sess.storeCtx, sess.storeCancel = context.WithTimeout(context.WithoutCancel(sess.c.Context()), sess.s.set.storeWait)
	}
	return sess.storeCtx
}

// stopStore releases the context of storeContext, if one was made.
func (sess *Session) stopStore() {
	if sess.storeCancel != nil {
		sess.storeCancel()
		sess.storeCtx, sess.storeCancel = nil, nil
	}
}

func storeError(err error) error {
	return plinth.Error(http.StatusServiceUnavailable, "the session store is unavailable").Wrap(err)
}

// writeCookie adds the session cookie to the response: value for maxAge
// seconds, or an expired cookie when maxAge is negative.
func (sess *Session) writeCookie(h http.Header, value string, maxAge int) {
	set := &sess.s.set
	secure := sess.c.Secure()
	name := set.name
	if secure {
		name = set.secureName
	}
	b := make([]byte, 0, len(name)+len(value)+96)
	b = append(b, name...)
	b = append(b, '=')
	b = append(b, value...)
	b = append(b, "; Path=/"...)
	if set.domain != "" {
		b = append(b, "; Domain="...)
		b = append(b, set.domain...)
	}
	switch {
	case maxAge < 0:
		b = append(b, "; Max-Age=0"...)
	case !set.browser:
		b = append(b, "; Max-Age="...)
		b = strconv.AppendInt(b, int64(max(maxAge, 1)), 10)
	}
	b = append(b, "; HttpOnly"...)
	if secure {
		b = append(b, "; Secure"...)
	}
	switch set.sameSite {
	case http.SameSiteStrictMode:
		b = append(b, "; SameSite=Strict"...)
	case http.SameSiteNoneMode:
		b = append(b, "; SameSite=None"...)
	default:
		b = append(b, "; SameSite=Lax"...)
	}
	h["Set-Cookie"] = append(h["Set-Cookie"], string(b))
}

var (
	noStore    = []string{"no-store"}
	varyCookie = httpsyntax.NewVaryNames("Cookie")
)

// MaxCookieSize is the largest cookie, name and value, that browsers are
// required to keep (RFC 6265, section 6.1: at least 4096 bytes); larger
// cookies are dropped or cut by some. The cookie store refuses to set one.
const MaxCookieSize = 4096

// CookieTooLargeError reports a session too large for the cookie store.
type CookieTooLargeError struct {
	Size int // the sealed cookie's name and value, in bytes
}

func (e *CookieTooLargeError) Error() string {
	return "web: the session sealed into its cookie is " + strconv.Itoa(e.Size) + " bytes, over the " +
		strconv.Itoa(MaxCookieSize) + "-byte limit browsers keep: store less in the session, or use a server-side store (memory, Redis, PostgreSQL)"
}

// requestCookie returns the value of the cookie named name, without the
// allocations of http.Request.Cookie: the request's Cookie headers are
// scanned in place. A value in double quotes is unquoted.
func requestCookie(r *http.Request, name string) (string, bool) {
	for _, line := range r.Header["Cookie"] {
		for len(line) > 0 {
			var part string
			if i := strings.IndexByte(line, ';'); i >= 0 {
				part, line = line[:i], line[i+1:]
			} else {
				part, line = line, ""
			}
			part = strings.TrimSpace(part)
			if len(part) <= len(name) || part[len(name)] != '=' || part[:len(name)] != name {
				continue
			}
			v := part[len(name)+1:]
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			return v, true
		}
	}
	return "", false
}
