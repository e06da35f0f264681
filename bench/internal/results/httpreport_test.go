package results

import (
	"bytes"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/bench/internal/suite"
)

func TestSummarize(t *testing.T) {
	in := `{"tags":{"framework":"std-limits","scenario":"minimal","round":"1"},"rps":1000,"latency_us":{"p50":10,"p95":20,"p99":30,"p99_9":40},"errors":0,"non_2xx":0,"server_cpu_pct":99,"server_rss_mib":10}
{"tags":{"framework":"std-limits","scenario":"minimal","round":"2"},"rps":3000,"latency_us":{"p50":12,"p95":20,"p99":30,"p99_9":40},"errors":1,"non_2xx":0,"server_cpu_pct":97,"server_rss_mib":12}
{"tags":{"framework":"plinth-new","scenario":"minimal","round":"1"},"rps":1900,"latency_us":{"p50":11,"p95":20,"p99":30,"p99_9":40},"errors":0,"non_2xx":2}
{"tags":{"framework":"plinth-new","scenario":"minimal","round":"2"},"rps":2100,"latency_us":{"p50":11,"p95":20,"p99":30,"p99_9":40},"errors":0,"non_2xx":0}
{"tags":{"framework":"plinth","scenario":"default-stack","round":"1"},"rps":4000,"latency_us":{"p50":11,"p95":20,"p99":30,"p99_9":40}}
`
	runs, err := ReadLoadgenRuns(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	rows := Summarize(runs)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(rows), rows)
	}
	// Report order: scenarios as suite.ScenarioNames, frameworks as httpserve.Frameworks.
	if rows[0].Framework != "plinth-new" || rows[1].Framework != "std-limits" || rows[2].Scenario != suite.DefaultStack {
		t.Fatalf("order: %+v", rows)
	}
	pn, sl, ds := rows[0], rows[1], rows[2]
	if sl.RPS != 2000 || sl.P50 != 11 || sl.CPU != 98 || sl.RSS != 11 || sl.Errors != 1 || sl.VsStdLimits != 1 {
		t.Errorf("std-limits row %+v", sl)
	}
	if pn.RPS != 2000 || pn.VsStdLimits != 1 || pn.VsStd != 0 || pn.Non2xx != 2 {
		t.Errorf("plinth-new row %+v", pn)
	}
	if ds.VsStdLimits != 2 { // default-stack takes minimal's std-limits
		t.Errorf("default-stack row %+v: want its ratio against minimal's std-limits", ds)
	}
	var md bytes.Buffer
	WriteHTTPTable(&md, &HTTPReport{Rows: rows}, false)
	if !strings.Contains(md.String(), "| minimal | plinth-new | 2000 | – | 1.00 |") {
		t.Errorf("table:\n%s", md.String())
	}
}

func TestReadLoadgenRunsErrors(t *testing.T) {
	for _, in := range []string{"not json\n", `{"rps":1}` + "\n"} {
		if _, err := ReadLoadgenRuns(strings.NewReader(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
