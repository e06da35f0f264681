package web_test

import (
	"fmt"
	"log"
	"net/http/httptest"
	"testing/fstest"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/web"
)

// A site in three languages with a layout and HTML error pages. The files
// would usually be embedded (//go:embed locales templates).
func ExampleNewViews() {
	files := fstest.MapFS{
		"locales/en.json":             {Data: []byte(`{"home.title": "Welcome", "notfound": "Nothing here"}`)},
		"locales/fr.json":             {Data: []byte(`{"home.title": "Bienvenue", "notfound": "Rien ici"}`)},
		"locales/de.json":             {Data: []byte(`{"home.title": "Willkommen", "notfound": "Nichts hier"}`)},
		"templates/layouts/base.html": {Data: []byte(`<html lang="{{ lang }}"><h1>{{ block "title" . }}{{ end }}</h1></html>`)},
		"templates/home.html":         {Data: []byte(`{{ template "layouts/base.html" . }}{{ define "title" }}{{ t "home.title" }}{{ end }}`)},
		"templates/errors/404.html":   {Data: []byte(`{{ template "layouts/base.html" . }}{{ define "title" }}{{ t "notfound" }}{{ end }}`)},
	}
	locales, err := web.NewLocales(web.LocalesConfig{Files: files, Dir: "locales"})
	if err != nil {
		log.Fatal(err)
	}
	tmpl, _ := files.Sub("templates") // fs.Sub(embedded, "templates")
	views, err := web.NewViews(web.ViewsConfig{Files: tmpl})
	if err != nil {
		log.Fatal(err)
	}

	app := plinth.New()
	app.Use(locales.Middleware())
	web.NewErrorPages(web.ErrorPagesConfig{Views: views}).Attach(app)
	app.Post("/lang", locales.SwitchHandler())
	app.Get("/{$}", func(c *plinth.Ctx) error { return views.Render(c, 200, "home", nil) })

	for _, lang := range []string{"en-US", "fr-CA", "de"} {
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Accept-Language", lang)
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		fmt.Println(rec.Body)
	}
	req := httptest.NewRequest("GET", "/nowhere", nil)
	req.Header.Set("Accept", "text/html")
	req.Header.Set("Accept-Language", "fr")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Body)
	// Output:
	// <html lang="en"><h1>Welcome</h1></html>
	// <html lang="fr"><h1>Bienvenue</h1></html>
	// <html lang="de"><h1>Willkommen</h1></html>
	// 404 <html lang="fr"><h1>Rien ici</h1></html>
}
