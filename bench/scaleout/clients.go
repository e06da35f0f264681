package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The demo account every signed-in client signs in as, each with a session
// of its own.
const (
	demoEmail    = "demo@example.com"
	demoPassword = "demo-password"
)

// requestTimeout bounds every request of the load.
const requestTimeout = 10 * time.Second

// quoteSet is how many quotes the clients read: a small set, so that most
// reads are cache hits.
const quoteSet = 50

// client is one visitor: its own cookie jar, its own connections (one
// http.Transport, at most 2 idle connections, as a browser keeps a few)
// and its own address, sent as X-Forwarded-For: 10.a.b.c, which the load
// balancer appends to. Half the clients sign in (as the demo account, each
// with its own session); the others stay anonymous and post no jobs.
//
// Go's http.Transport sends an idempotent request again, once, when the
// kept-alive connection it was written to was closed before any answer
// (the server closed it idle at that instant): browsers do the same, so
// the load does not count those as failures; a POST is never resent.
type client struct {
	id     int
	signed bool // signs in
	xff    string
	base   string // the load balancer's URL
	hc     *http.Client
	shared *shared

	mu        sync.Mutex
	rng       *rand.Rand
	token     string // the CSRF token of the forms
	gen       int    // sign-in generation: bumped by each sign-in
	signingIn bool
	jobSeq    int
	jobs      []jobRecord // this client's 202'd jobs, for GET /jobs/{token}
}

// shared is what the clients share: the recorder, the quotes seen, the
// run's token prefix and the load balancer's servers.
type shared struct {
	rec     *recorder
	servers []lbServer
	runID   string

	mu     sync.Mutex
	quotes map[int]string // n -> the first text seen
}

// newClient makes client id; signed says whether it signs in.
func newClient(id int, signed bool, base string, sh *shared) *client {
	jar, _ := cookiejar.New(nil)
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 3 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     30 * time.Second,
	}
	return &client{
		id: id, signed: signed, base: base, shared: sh,
		xff: clientAddr(id),
		hc: &http.Client{Jar: jar, Transport: tr,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		rng: rand.New(rand.NewPCG(uint64(id), 0x5ca1e)),
	}
}

// clientAddr is client id's address: 10.1.b.c, one per client.
func clientAddr(id int) string {
	return fmt.Sprintf("10.1.%d.%d", id/250, id%250+1)
}

// answer is a response read whole.
type answer struct {
	status  int
	header  http.Header
	body    []byte
	backend string
}

// send sends a request with the client's cookies and address: a form when
// form is not nil. accept is the Accept header.
func (c *client) send(ctx context.Context, method, path string, form url.Values, accept string) (answer, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return answer{}, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("X-Forwarded-For", c.xff)
	req.Header.Set("User-Agent", "plinth-scaleout/1")
	resp, err := c.hc.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, header: resp.Header,
		backend: backendName(resp.Header.Get("X-Plinth-Backend"), c.shared.servers)}
	a.body, err = io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return a, err
}

const (
	acceptHTML = "text/html,application/xhtml+xml,*/*;q=0.8"
	acceptJSON = "application/json"
)

// csrfInput finds the hidden csrf_token input of a form, whatever the
// order of its attributes; csrfMeta the page's <meta name="csrf-token">.
var (
	csrfInput = regexp.MustCompile(`<input[^>]*name="csrf_token"[^>]*>`)
	valueAttr = regexp.MustCompile(`value="([^"]*)"`)
	csrfMeta  = regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)"`)
)

// csrfToken returns the CSRF token of a page, "" when it has none.
func csrfToken(page []byte) string {
	if in := csrfInput.Find(page); in != nil {
		if m := valueAttr.FindSubmatch(in); m != nil {
			return html.UnescapeString(string(m[1]))
		}
	}
	if m := csrfMeta.FindSubmatch(page); m != nil {
		return html.UnescapeString(string(m[1]))
	}
	return ""
}

// fetchToken reads the contact form for a CSRF token and keeps it.
func (c *client) fetchToken(ctx context.Context) error {
	a, err := c.send(ctx, http.MethodGet, "/contact", nil, acceptHTML)
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return fmt.Errorf("GET /contact: %d", a.status)
	}
	t := csrfToken(a.body)
	if t == "" {
		return fmt.Errorf("GET /contact: no csrf_token in the form")
	}
	c.mu.Lock()
	c.token = t
	c.mu.Unlock()
	return nil
}

// signIn signs the client in: the login form's token, POST /login (303 to
// /account), then a new token (signing in replaces the CSRF secret).
// Attempts refused for the moment (429, 503) wait their Retry-After.
func (c *client) signIn(ctx context.Context) error {
	var last error
	for attempt := 0; attempt < 10; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Second)
		}
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := c.signInOnce(rctx)
		cancel()
		if err == nil {
			c.mu.Lock()
			c.gen++
			c.mu.Unlock()
			return nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return fmt.Errorf("client %d: sign-in: %w", c.id, last)
}

func (c *client) signInOnce(ctx context.Context) error {
	a, err := c.send(ctx, http.MethodGet, "/login", nil, acceptHTML)
	if err != nil {
		return err
	}
	if a.status == http.StatusSeeOther { // still signed in
		return c.fetchToken(ctx)
	}
	token := csrfToken(a.body)
	if a.status != http.StatusOK || token == "" {
		return fmt.Errorf("GET /login: %d, token %q", a.status, token)
	}
	form := url.Values{"email": {demoEmail}, "password": {demoPassword}, "csrf_token": {token}}
	a, err = c.send(ctx, http.MethodPost, "/login", form, acceptHTML)
	if err != nil {
		return err
	}
	if a.status != http.StatusSeeOther || !strings.HasSuffix(a.header.Get("Location"), "/account") {
		return fmt.Errorf("POST /login: %d (Location %q, Retry-After %q)", a.status, a.header.Get("Location"), a.header.Get("Retry-After"))
	}
	return c.fetchToken(ctx)
}

// signedOut handles a signed-in client's 401 or redirect to /login: the
// first of a sign-in generation is a sign-out, recorded; the client then
// signs in again, in the background.
func (c *client) signedOut(gen int, at time.Time) {
	c.mu.Lock()
	if gen != c.gen || c.signingIn {
		c.mu.Unlock()
		return
	}
	c.signingIn = true
	c.mu.Unlock()
	c.shared.rec.addSignOut(signOut{At: at, Client: c.id})
	go func() {
		err := c.signIn(context.Background())
		if err == nil {
			c.shared.rec.addSignIn()
		}
		c.mu.Lock()
		c.signingIn = false
		c.mu.Unlock()
	}()
}

// action is one kind of request of the mix.
type action struct {
	name   string
	weight int
	signed bool // only for a signed-in client
	do     func(c *client, ctx context.Context, r *result, gen int) (answer, error)
}

// mix is the requests a client sends, by weight out of 20: for a signed-in
// client pages, API calls, a form post, a job enqueue (1 in 20) and a job's
// status; for an anonymous one the pages and API calls without a session.
var mix = []action{
	{"GET /", 2, false, doHome},
	{"GET /hello", 2, false, doHello},
	{"GET /account", 3, true, doAccount},
	{"GET /api/me", 3, true, doMe},
	{"POST /contact", 1, false, doContact},
	{"GET /api/version", 2, false, doVersion},
	{"GET /api/quotes/{n}", 5, false, doQuote},
	{"POST /jobs", 1, true, doJob},
	{"GET /jobs/{token}", 1, true, doJobStatus},
}

// anonymousMix is an anonymous client's mix, by weight out of 20.
var anonymousMix = []action{
	{"GET /", 4, false, doHome},
	{"GET /hello", 4, false, doHello},
	{"POST /contact", 2, false, doContact},
	{"GET /api/version", 3, false, doVersion},
	{"GET /api/quotes/{n}", 7, false, doQuote},
}

// pick draws the next action.
func (c *client) pick() action {
	m := anonymousMix
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.signed && !c.signingIn {
		m = mix
	}
	total := 0
	for _, a := range m {
		total += a.weight
	}
	n := c.rng.IntN(total)
	for _, a := range m {
		if n < a.weight {
			return a
		}
		n -= a.weight
	}
	return m[0]
}

// do sends one request of the mix, scheduled at sched, checks its answer
// and records it.
func (c *client) do(sched time.Time) {
	lag := time.Since(sched)
	a := c.pick()
	c.mu.Lock()
	gen := c.gen
	c.mu.Unlock()
	r := result{Sched: sched, Lag: lag, Route: a.name, Client: c.id}
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	ans, err := a.do(c, ctx, &r, gen)
	cancel()
	r.Lat = time.Since(sched)
	r.Status, r.Backend = ans.status, ans.backend
	if ans.header != nil && ans.header.Get("Retry-After") != "" {
		r.RetryAfter = true
	}
	if err != nil && r.Cause == "" {
		r.Cause, r.Err = classifyErr(err), err.Error()
	}
	c.shared.rec.addResult(r)
}

// fail marks r failed for cause with a message.
func fail(r *result, cause, format string, args ...any) {
	r.Cause, r.Err = cause, fmt.Sprintf(format, args...)
}

// unexpected marks r failed by its status: 5xx and 4xx by code, any other
// status as a wrong answer.
func unexpected(r *result, a answer, want int) {
	fail(r, classifyStatus(a.status), "status %d, want %d: %s", a.status, want, snippet(a.body))
}

// snippet is the start of a body, for failure samples.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}

func doHome(c *client, ctx context.Context, r *result, _ int) (answer, error) {
	r.Path = "/"
	a, err := c.send(ctx, http.MethodGet, "/", nil, acceptHTML)
	if err != nil {
		return a, err
	}
	switch {
	case a.status != http.StatusOK:
		unexpected(r, a, 200)
	case !strings.Contains(strings.ToLower(string(a.body)), "<html"):
		fail(r, causeWrong, "GET /: not an HTML page: %s", snippet(a.body))
	}
	return a, nil
}

func doHello(c *client, ctx context.Context, r *result, _ int) (answer, error) {
	r.Path = "/hello"
	a, err := c.send(ctx, http.MethodGet, "/hello", nil, "text/plain,*/*")
	if err != nil {
		return a, err
	}
	switch {
	case a.status != http.StatusOK:
		unexpected(r, a, 200)
	case !strings.Contains(string(a.body), "Hello"):
		fail(r, causeWrong, "GET /hello: %q", snippet(a.body))
	}
	return a, nil
}

func doAccount(c *client, ctx context.Context, r *result, gen int) (answer, error) {
	r.Path = "/account"
	a, err := c.send(ctx, http.MethodGet, "/account", nil, acceptHTML)
	if err != nil {
		return a, err
	}
	switch {
	case a.status == http.StatusSeeOther && strings.Contains(a.header.Get("Location"), "/login"):
		fail(r, causeSignedOut, "GET /account: 303 to %s", a.header.Get("Location"))
		c.signedOut(gen, time.Now())
	case a.status != http.StatusOK:
		unexpected(r, a, 200)
	case !strings.Contains(string(a.body), demoEmail):
		fail(r, causeWrong, "GET /account: no %s in the page: %s", demoEmail, snippet(a.body))
	}
	return a, nil
}

func doMe(c *client, ctx context.Context, r *result, gen int) (answer, error) {
	r.Path = "/api/me"
	a, err := c.send(ctx, http.MethodGet, "/api/me", nil, acceptJSON)
	if err != nil {
		return a, err
	}
	var me struct {
		Email string `json:"email"`
	}
	switch {
	case a.status == http.StatusUnauthorized:
		fail(r, causeSignedOut, "GET /api/me: 401")
		c.signedOut(gen, time.Now())
	case a.status != http.StatusOK:
		unexpected(r, a, 200)
	case json.Unmarshal(a.body, &me) != nil || me.Email != demoEmail:
		fail(r, causeWrong, "GET /api/me: %s", snippet(a.body))
	}
	return a, nil
}

func doContact(c *client, ctx context.Context, r *result, _ int) (answer, error) {
	r.Path = "/contact"
	c.mu.Lock()
	token := c.token
	c.mu.Unlock()
	form := url.Values{"name": {"Client " + strconv.Itoa(c.id)}, "email": {fmt.Sprintf("client%d@example.com", c.id)},
		"message": {"A message from the scale-out rehearsal."}, "csrf_token": {token}}
	a, err := c.send(ctx, http.MethodPost, "/contact", form, acceptHTML)
	if err != nil {
		return a, err
	}
	switch {
	case a.status == http.StatusSeeOther:
	case a.status == http.StatusForbidden:
		unexpected(r, a, 303)
		go func() { _ = c.fetchToken(context.Background()) }() // a token of another secret: take a new one
	default:
		unexpected(r, a, 303)
	}
	return a, nil
}

func doVersion(c *client, ctx context.Context, r *result, _ int) (answer, error) {
	r.Path = "/api/version"
	a, err := c.send(ctx, http.MethodGet, "/api/version", nil, acceptJSON)
	if err != nil {
		return a, err
	}
	var v versionAnswer
	switch {
	case a.status != http.StatusOK:
		unexpected(r, a, 200)
	case json.Unmarshal(a.body, &v) != nil || (v.Version != "v1" && v.Version != "v2") || v.PID <= 0:
		fail(r, causeWrong, "GET /api/version: %s", snippet(a.body))
	}
	return a, nil
}

func doQuote(c *client, ctx context.Context, r *result, _ int) (answer, error) {
	c.mu.Lock()
	n := c.rng.IntN(quoteSet) + 1
	c.mu.Unlock()
	r.Path = "/api/quotes/" + strconv.Itoa(n)
	a, err := c.send(ctx, http.MethodGet, r.Path, nil, acceptJSON)
	if err != nil {
		return a, err
	}
	var q struct {
		N    int    `json:"n"`
		Text string `json:"text"`
	}
	if a.status != http.StatusOK {
		unexpected(r, a, 200)
		return a, nil
	}
	if json.Unmarshal(a.body, &q) != nil || q.N != n || q.Text == "" {
		fail(r, causeWrong, "GET %s: %s", r.Path, snippet(a.body))
		return a, nil
	}
	xc := strings.ToLower(a.header.Get("X-Cache"))
	c.shared.rec.addCache(xc)
	if xc != "hit" && xc != "miss" {
		fail(r, causeWrong, "GET %s: X-Cache %q, want hit or miss", r.Path, xc)
		return a, nil
	}
	sh := c.shared
	sh.mu.Lock()
	first, seen := sh.quotes[n]
	if !seen {
		sh.quotes[n] = q.Text
	}
	sh.mu.Unlock()
	if seen && first != q.Text {
		fail(r, causeWrong, "GET %s: text %q, earlier %q (X-Cache %s)", r.Path, q.Text, first, xc)
	}
	return a, nil
}

func doJob(c *client, ctx context.Context, r *result, gen int) (answer, error) {
	r.Path = "/jobs"
	c.mu.Lock()
	c.jobSeq++
	token := fmt.Sprintf("%s-c%d-%d", c.shared.runID, c.id, c.jobSeq)
	csrf := c.token
	c.mu.Unlock()
	form := url.Values{"token": {token}, "csrf_token": {csrf}}
	a, err := c.send(ctx, http.MethodPost, "/jobs", form, acceptJSON)
	if err != nil {
		return a, err
	}
	var j struct {
		ID    int64  `json:"id"`
		Token string `json:"token"`
	}
	switch {
	case a.status == http.StatusUnauthorized || (a.status == http.StatusSeeOther && strings.Contains(a.header.Get("Location"), "/login")):
		fail(r, causeSignedOut, "POST /jobs: %d", a.status)
		c.signedOut(gen, time.Now())
	case a.status != http.StatusAccepted:
		unexpected(r, a, 202)
	case json.Unmarshal(a.body, &j) != nil || j.Token != token || j.ID == 0:
		fail(r, causeWrong, "POST /jobs token %s: %s", token, snippet(a.body))
	default:
		rec := jobRecord{Token: token, Sched: r.Sched}
		c.shared.rec.addJob(rec)
		c.mu.Lock()
		c.jobs = append(c.jobs, rec)
		c.mu.Unlock()
	}
	return a, nil
}

// doJobStatus asks for a job this client enqueued at least 10 s ago (GET
// /api/me when it has none yet).
func doJobStatus(c *client, ctx context.Context, r *result, gen int) (answer, error) {
	var token string
	c.mu.Lock()
	for i := len(c.jobs) - 1; i >= 0; i-- {
		if time.Since(c.jobs[i].Sched) > 10*time.Second {
			token = c.jobs[c.rng.IntN(i+1)].Token
			break
		}
	}
	c.mu.Unlock()
	if token == "" {
		r.Route = "GET /api/me"
		return doMe(c, ctx, r, gen)
	}
	r.Path = "/jobs/" + token
	a, err := c.send(ctx, http.MethodGet, r.Path, nil, acceptJSON)
	if err != nil {
		return a, err
	}
	var j struct {
		Token string `json:"token"`
		Runs  *int   `json:"runs"`
	}
	switch {
	case a.status == http.StatusUnauthorized || (a.status == http.StatusSeeOther && strings.Contains(a.header.Get("Location"), "/login")):
		fail(r, causeSignedOut, "GET %s: %d", r.Path, a.status)
		c.signedOut(gen, time.Now())
	case a.status != http.StatusOK:
		unexpected(r, a, 200)
	case json.Unmarshal(a.body, &j) != nil || j.Token != token || j.Runs == nil || *j.Runs < 0:
		fail(r, causeWrong, "GET %s: %s", r.Path, snippet(a.body))
	}
	return a, nil
}
