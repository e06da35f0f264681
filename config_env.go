package plinth

import (
	"log/slog"
	"slices"

	"github.com/plinth-go/plinth/internal/envconf"
)

// DeclareEnv declares PLINTH_* environment variables that the application,
// or a module, reads itself. At start (Run, Serve) the App warns, once, of
// every PLINTH_* variable set in its environment that neither the core, nor
// a module attached to it, nor the application declared: a misspelled
// PLINTH_MAX_BODY_BYTE would otherwise be ignored in silence. The warning
// suggests the nearest known name. Plinth's modules declare their variables
// when they are attached (data.DB.Attach, Sessions.Attach, metrics.New,
// tracing.New); PLINTH_TEST_* variables are never reported. Declaring a
// name twice, or a name without the PLINTH_ prefix, is harmless.
func (a *App) DeclareEnv(names ...string) {
	a.mu.Lock()
	a.envNames = append(a.envNames, names...)
	a.mu.Unlock()
}

// coreEnvNames are the variables the core module reads outside resolve: the
// inspection mode of Run (PLINTH_INSPECT, PLINTH_INSPECT_OUTPUT), the
// deployment's name, PLINTH_ENV ("development" makes web's views reload
// their templates), and PLINTH_CSRF_KEYS, which web.CSRF reads when it is
// made: a middleware, it has no App to declare it to, and a deployment of
// several instances must set it (one key for all).
func coreEnvNames() []string {
	return []string{inspectEnv, inspectOutputEnv, "PLINTH_ENV", "PLINTH_CSRF_KEYS"}
}

// knownEnv returns every PLINTH_* name the App knows: those the core read
// (resolvedNames), its other ones and those declared with DeclareEnv.
func (a *App) knownEnv(resolvedNames []string) []string {
	a.mu.Lock()
	known := slices.Concat(resolvedNames, coreEnvNames(), a.envNames)
	a.mu.Unlock()
	return known
}

// warnAtStart logs, once per Run or Serve, what the configuration accepts
// but the operator most likely did not mean: PLINTH_* variables nobody reads
// (environ is os.Environ's form) and trusted proxies that trust everyone.
func (a *App) warnAtStart(log *slog.Logger, set settings, environ []string) {
	for _, u := range envconf.Unknown(environ, a.knownEnv(set.envNames)) {
		msg := "plinth: environment variable " + u[0] + " is not read by Plinth, its modules in this App or the application; ignored"
		if u[1] != "" {
			msg += " (did you mean " + u[1] + "?)"
		}
		msg += ". An application that reads it declares it with App.DeclareEnv."
		log.Warn(msg, "variable", u[0], "did_you_mean", u[1])
	}
	for _, p := range set.trusted {
		if p.Bits() == 0 {
			log.Warn("plinth: TRUSTED PROXIES INCLUDE "+p.String()+": every client is trusted, so any client sets its own Ctx.ClientIP and Ctx.Secure (and with them rate limits, access logs and HSTS) by sending "+forwardedName(set.forwarded)+"; list your proxies' addresses instead (App.TrustedProxies, PLINTH_TRUSTED_PROXIES)",
				"prefix", p.String())
		}
	}
}

// forwardedName is the header fh names, for messages.
func forwardedName(fh forwardedHeader) string {
	if fh == forwarded {
		return "Forwarded"
	}
	return "X-Forwarded-For"
}

// offOr is v for a log line, or "off" when v is Off.
func offOr[T ~int | ~int64](v T) any {
	if v < 0 {
		return "off"
	}
	return v
}
