package api

import (
	"html"
	"net/http"
	"net/url"

	"github.com/plinth-go/plinth"
)

// docsCSP returns the Content-Security-Policy of the docs page: the
// defaults of plinth.New, with the renderer script's origin allowed for
// scripts, styles, fonts, images and connections (CSPNonce adds the page's
// nonce to script-src per request).
func docsCSP(scriptURL string) string {
	origin := "'self'"
	if u, err := url.Parse(scriptURL); err == nil && u.Scheme != "" && u.Host != "" {
		origin = u.Scheme + "://" + u.Host
	}
	return "default-src 'self';base-uri 'self';object-src 'none';frame-ancestors 'self';form-action 'self'" +
		";script-src 'self' " + origin +
		";style-src 'self' 'unsafe-inline' " + origin +
		";font-src 'self' data: " + origin + " https:" +
		";img-src 'self' data: " + origin + " https:" +
		";connect-src 'self' " + origin +
		";worker-src 'self' blob:"
}

// serveDocs registers the docs page: an HTML page that loads the renderer
// script from Config.DocsURL, pointed at the JSON document, under its own
// Content-Security-Policy (the App's default forbids scripts from other
// origins) with a per-request nonce on its script elements.
func (a *API) serveDocs() {
	csp := docsCSP(a.cfg.DocsURL)
	a.skip["GET "+a.cfg.DocsPath] = true
	head := `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>` + html.EscapeString(a.cfg.Title) + `</title>
</head>
<body>
<script id="api-reference" data-url="` + html.EscapeString(a.cfg.OpenAPIPath+".json") + `" nonce="`
	mid := `"></script>
<script src="` + html.EscapeString(a.cfg.DocsURL) + `" nonce="`
	tail := `"></script>
</body>
</html>
`
	a.app.Get(a.cfg.DocsPath, func(c *plinth.Ctx) error {
		c.Header().Set("Content-Security-Policy", csp)
		nonce := c.CSPNonce()
		return c.HTML(http.StatusOK, head+nonce+mid+nonce+tail)
	})
}
