package tracing_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/observe/tracing"
	"go.opentelemetry.io/otel/baggage"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestUntrustedTraceparent: by default (no trusted proxies) a request's
// traceparent does not choose the trace: the span is a new root, its trace
// ID the server's, linked to the remote span.
func TestUntrustedTraceparent(t *testing.T) {
	rc := newRecorder(t, sdktrace.AlwaysSample(), quietLogger())
	rc.app.Get("/", func(c *plinth.Ctx) error { return c.NoContent(204) })
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("traceparent", traceparent)
	rc.do(t, r)
	s := rc.only(t)
	if got := s.SpanContext.TraceID().String(); got == incomingTraceID {
		t.Errorf("trace ID %s is the client's", got)
	}
	if s.Parent.IsValid() {
		t.Errorf("parent %v, want none (a root span)", s.Parent)
	}
	if len(s.Links) != 1 || s.Links[0].SpanContext.TraceID().String() != incomingTraceID ||
		s.Links[0].SpanContext.SpanID().String() != incomingSpanID {
		t.Errorf("links %+v, want one to %s/%s", s.Links, incomingTraceID, incomingSpanID)
	}
}

// TestUntrustedSamplingIsLocal: the sampled flag of an untrusted
// traceparent decides nothing; the provider's sampler does.
func TestUntrustedSamplingIsLocal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sampler sdktrace.Sampler
		parent  string
		spans   int
	}{
		{"client asks for sampling", sdktrace.ParentBased(sdktrace.NeverSample()), traceparent, 0},
		{"client switches sampling off", sdktrace.ParentBased(sdktrace.AlwaysSample()), unsampledParent, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := newRecorder(t, tc.sampler, quietLogger())
			rc.app.Get("/", func(c *plinth.Ctx) error { return c.NoContent(204) })
			r := httptest.NewRequest("GET", "/", nil)
			r.Header.Set("traceparent", tc.parent)
			rc.do(t, r)
			if got := len(rc.exp.GetSpans()); got != tc.spans {
				t.Errorf("%d spans recorded, want %d", got, tc.spans)
			}
		})
	}
}

// TestTrustRemote: the trusted proxies' trace context is continued, other
// peers' is not; TrustAll and TrustNone, and the variable, override it.
func TestTrustRemote(t *testing.T) {
	for _, tc := range []struct {
		name   string
		trust  tracing.TrustRemote
		env    string
		remote string
		honour bool
	}{
		{"trusted proxy", tracing.TrustProxies, "", "192.0.2.1:1234", true},
		{"other peer", tracing.TrustProxies, "", "198.51.100.7:1234", false},
		{"none, even the proxy", tracing.TrustNone, "", "192.0.2.1:1234", false},
		{"all", tracing.TrustAll, "", "198.51.100.7:1234", true},
		{"env all", tracing.TrustProxies, "all", "198.51.100.7:1234", true},
		{"env none", tracing.TrustAll, "none", "192.0.2.1:1234", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tracing.EnvTrustRemote, tc.env)
			app := plinth.New()
			app.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
			rc := newRecorderConfig(t, sdktrace.AlwaysSample(), quietLogger(), app, tracing.Config{TrustRemote: tc.trust})
			rc.app.Get("/", func(c *plinth.Ctx) error { return c.NoContent(204) })
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			r.Header.Set("traceparent", traceparent)
			rc.do(t, r)
			s := rc.only(t)
			if got := s.SpanContext.TraceID().String() == incomingTraceID; got != tc.honour {
				t.Errorf("trace continued: %v, want %v", got, tc.honour)
			}
			if got := s.Parent.SpanID().String() == incomingSpanID; got != tc.honour {
				t.Errorf("parent is the remote span: %v, want %v", got, tc.honour)
			}
		})
	}
}

func TestRemoteEnvErrors(t *testing.T) {
	t.Setenv(tracing.EnvTrustRemote, "everyone")
	t.Setenv(tracing.EnvForwardBaggage, "maybe")
	_, err := tracing.New(plinth.New(), tracing.Config{TracerProvider: sdktrace.NewTracerProvider()})
	if err == nil {
		t.Fatal("New accepted bad variables")
	}
	for _, want := range []string{"PLINTH_TRACING_TRUST_REMOTE=\"everyone\"", "PLINTH_TRACING_FORWARD_BAGGAGE=\"maybe\""} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

// TestIncomingBaggage: incoming baggage reaches neither the handler's
// context nor the services it calls, unless ForwardBaggage is set and the
// request is trusted; baggage the handler sets goes out.
func TestIncomingBaggage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     tracing.Config
		forward bool
	}{
		{"default", tracing.Config{}, false},
		{"trusted, not configured", tracing.Config{TrustRemote: tracing.TrustAll}, false},
		{"configured, untrusted", tracing.Config{ForwardBaggage: true}, false},
		{"configured, trusted", tracing.Config{TrustRemote: tracing.TrustAll, ForwardBaggage: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan string, 1)
			downstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got <- r.Header.Get("baggage")
			}))
			defer downstream.Close()
			rc := newRecorderConfig(t, sdktrace.AlwaysSample(), quietLogger(), plinth.New(), tc.cfg)
			client := rc.tr.Client(downstream.Client())
			var inHandler string
			rc.app.Get("/", func(c *plinth.Ctx) error {
				inHandler = baggage.FromContext(c.Context()).Member("tenant").Value()
				req, _ := http.NewRequestWithContext(c.Context(), "GET", downstream.URL, nil)
				resp, err := client.Do(req)
				if err != nil {
					return err
				}
				resp.Body.Close()
				return c.NoContent(204)
			})
			r := httptest.NewRequest("GET", "/", nil)
			r.Header.Set("traceparent", traceparent)
			r.Header.Set("baggage", "tenant=acme")
			rc.do(t, r)
			down := <-got
			want, wantDown := "", ""
			if tc.forward {
				want, wantDown = "acme", "tenant=acme"
			}
			if inHandler != want || down != wantDown {
				t.Errorf("handler's tenant %q, downstream baggage %q; want %q, %q", inHandler, down, want, wantDown)
			}
		})
	}
}
