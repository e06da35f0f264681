package metrics

import (
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// The label names: OpenTelemetry's attribute names in Prometheus form,
// except the status, which is a class and so not http.response.status_code
// (whose values are the codes themselves).
const (
	labelMethod = "http_request_method"
	labelRoute  = "http_route"
	labelStatus = "http_response_status_class"
)

// unmatchedRoute is the route label of a request no route matched (404,
// 405, OPTIONS, redirects to the clean path), as Ctx.Logger says it.
const unmatchedRoute = "unmatched"

// methods are the values of the method label, by index: the methods of
// RFC 9110 and PATCH, which OpenTelemetry knows, then "_OTHER" for any
// other, so that a client cannot make series with made-up methods.
var methods = [...]string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete,
	http.MethodPatch, http.MethodOptions, http.MethodConnect, http.MethodTrace, "_OTHER",
}

const (
	nMethods = len(methods)
	mGET     = 0
	mOTHER   = nMethods - 1
)

// methodIndex returns the index of method in methods.
func methodIndex(method string) int {
	switch method {
	case http.MethodGet:
		return 0
	case http.MethodHead:
		return 1
	case http.MethodPost:
		return 2
	case http.MethodPut:
		return 3
	case http.MethodDelete:
		return 4
	case http.MethodPatch:
		return 5
	case http.MethodOptions:
		return 6
	case http.MethodConnect:
		return 7
	case http.MethodTrace:
		return 8
	}
	return mOTHER
}

// classes are the values of the status label, by index.
var classes = [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}

const nClasses = len(classes)

// classIndex returns the index in classes of a final status (100-999).
func classIndex(status int) int {
	return min(max(status/100-1, 0), nClasses-1)
}

// initialClasses are the classes whose series each route has from start-up
// (with its method, or GET): 2xx for the request rate, 4xx and 5xx so that
// the first error of a route is an increase from zero, which rate() and
// increase() see, not a series appearing at 1, which they do not. The other
// combinations (HEAD, 1xx, 3xx, the methods of a method-less route) are
// made on their first request, once.
var initialClasses = [...]int{1, 3, 4}

// observers are the series of one route, method and status class.
type observers struct {
	duration, reqSize, respSize prometheus.Observer
}

// gauge is the active-requests series of one route and method.
type gauge struct{ prometheus.Gauge }

// route holds one route's series, made on first use (or at start-up) and
// then only loaded: a request picks its observers by index.
type route struct {
	label  string
	skip   bool // the metrics route itself
	obs    [nMethods * nClasses]atomic.Pointer[observers]
	active [nMethods]atomic.Pointer[gauge]
}

// table maps the App's patterns to their routes. It is read-only once made.
type table struct {
	routes    map[string]*route
	unmatched *route
	late      map[string]*route // patterns Routes did not list; guarded by Metrics.mu
}

// routeLabel returns the route label of a pattern: the pattern without its
// method ("GET /users/{id}" is "/users/{id}"), as OpenTelemetry's
// http.route, whose method is the method label.
func routeLabel(pattern string) string {
	if i := strings.IndexAny(pattern, " \t"); i >= 0 {
		return strings.TrimLeft(pattern[i:], " \t")
	}
	return pattern
}

// load returns the table, making it on first use.
func (m *Metrics) load() *table {
	if t := m.table.Load(); t != nil {
		return t
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.table.Load(); t != nil {
		return t
	}
	t := &table{routes: make(map[string]*route), unmatched: &route{label: unmatchedRoute}, late: make(map[string]*route)}
	labels := map[string]*route{}
	for _, ri := range m.app.Routes() {
		if ri.Pattern == m.selfPat && m.selfPat != "" {
			t.routes[ri.Pattern] = &route{skip: true}
			continue
		}
		label := routeLabel(ri.Pattern)
		rt := labels[label]
		if rt == nil {
			// Patterns with one label ("GET /x" and "POST /x") share the
			// route: their series differ by method.
			rt = &route{label: label}
			labels[label] = rt
		}
		t.routes[ri.Pattern] = rt
		mi := mGET
		if ri.Method != "" {
			mi = methodIndex(ri.Method)
		}
		m.initRoute(rt, mi)
	}
	m.initRoute(t.unmatched, mGET)
	m.table.Store(t)
	return t
}

// initRoute makes rt's start-up series for method index mi.
func (m *Metrics) initRoute(rt *route, mi int) {
	m.gauge(rt, mi)
	for _, ci := range initialClasses {
		m.observers(rt, mi, ci)
	}
}

// routeOf returns the route of a matched pattern ("" for none).
func (m *Metrics) routeOf(t *table, pattern string) *route {
	if pattern == "" {
		return t.unmatched
	}
	if rt := t.routes[pattern]; rt != nil {
		return rt
	}
	// A route Routes did not list when the table was made: not expected,
	// as the App is built by then, but measured rather than dropped.
	m.mu.Lock()
	defer m.mu.Unlock()
	rt := t.late[pattern]
	if rt == nil {
		rt = &route{label: routeLabel(pattern)}
		t.late[pattern] = rt
	}
	return rt
}

// observers returns rt's observers for method index mi and class index ci,
// making them on first use.
func (m *Metrics) observers(rt *route, mi, ci int) *observers {
	slot := &rt.obs[mi*nClasses+ci]
	if o := slot.Load(); o != nil {
		return o
	}
	lv := []string{methods[mi], rt.label, classes[ci]}
	slot.CompareAndSwap(nil, &observers{
		duration: m.duration.WithLabelValues(lv...),
		reqSize:  m.reqSize.WithLabelValues(lv...),
		respSize: m.respSize.WithLabelValues(lv...),
	})
	return slot.Load()
}

// gauge returns rt's active-requests gauge for method index mi, making it
// on first use.
func (m *Metrics) gauge(rt *route, mi int) *gauge {
	slot := &rt.active[mi]
	if g := slot.Load(); g != nil {
		return g
	}
	slot.CompareAndSwap(nil, &gauge{m.active.WithLabelValues(methods[mi], rt.label)})
	return slot.Load()
}
