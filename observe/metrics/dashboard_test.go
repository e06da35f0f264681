package metrics_test

import (
	"database/sql"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/observe/metrics"
)

// TestDashboard checks that docs/grafana/plinth-red.json is JSON, has a
// Prometheus data source variable, and queries only series and labels that
// this package exposes.
func TestDashboard(t *testing.T) {
	b, err := os.ReadFile("../../docs/grafana/plinth-red.json")
	if os.IsNotExist(err) {
		t.Skip("docs/grafana/plinth-red.json is absent: the observe module outside its repository has no docs to check")
	}
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Templating struct {
			List []struct{ Name, Type, Query any }
		}
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	hasDS := false
	for _, v := range dash.Templating.List {
		if v.Type == "datasource" && v.Query == "prometheus" {
			hasDS = true
		}
	}
	if !hasDS {
		t.Error("no Prometheus data source variable")
	}

	app, m := testApp(t, metrics.Config{})
	m.DBStats("main", func() sql.DBStats { return sql.DBStats{} })
	do(t, app, "GET", "/users/1", "")
	exposition := do(t, app, "GET", "/metrics", "").Body.String()
	names := regexp.MustCompile(`\b(?:http_server|go_sql)_[a-z_]+\b`)
	labels := regexp.MustCompile(`\b(http_[a-z_]+|db_name)\s*(?:=~|=|!=)`)
	exprs, matched := 0, 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs++
			for _, n := range names.FindAllString(tg.Expr, -1) {
				matched++
				if !strings.Contains(exposition, "\n"+n+"{") && !strings.Contains(exposition, "\n"+n+" ") {
					t.Errorf("panel %q queries %s, which the exposition lacks", p.Title, n)
				}
			}
			for _, l := range labels.FindAllStringSubmatch(tg.Expr, -1) {
				if !strings.Contains(exposition, l[1]+`="`) {
					t.Errorf("panel %q filters on label %s, which no series has", p.Title, l[1])
				}
			}
		}
	}
	if exprs < 5 || matched < exprs {
		t.Errorf("%d queries: the dashboard lost its panels?", exprs)
	}
}
