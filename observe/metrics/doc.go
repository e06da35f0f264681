// Package metrics measures a Plinth App for Prometheus, with the series of
// OpenTelemetry's HTTP semantic conventions in their Prometheus form:
//
//	http_server_request_duration_seconds   histogram  method, route, status class
//	http_server_request_body_size_bytes    histogram  method, route, status class
//	http_server_response_body_size_bytes   histogram  method, route, status class
//	http_server_active_requests            gauge      method, route
//
// New installs the measuring middleware on the App (App.Use, so that every
// route and every fallback answer is measured) and the exposition route, at
// "/metrics" by default, or on a separate address (Config.Addr,
// PLINTH_METRICS_ADDR):
//
//	app := plinth.New()
//	m := metrics.New(app, metrics.Config{})
//	m.DBStats("main", db.Stats)
//
// The labels are http_request_method (the nine methods of RFC 9110 and
// RFC 5789, any other as "_OTHER"), http_route (the matched pattern without
// its method, "/users/{id}"; "unmatched" for a request no route matched,
// never the raw path) and http_response_status_class ("1xx" to "5xx"). Each
// route's series are made at start-up (an OnStart hook, or the first request
// for an App served as a plain http.Handler), so that a request only picks
// its pre-made observers by index: the middleware allocates nothing of its
// own.
package metrics
