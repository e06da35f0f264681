package verify

// testType describes one TFB test type: where it lives and what it returns.
type testType struct {
	name string
	// path is the URL path, as TFB's go-std implementation serves it.
	path string
	// param is the query parameter holding the number of rows, for the
	// array tests; empty for the others.
	param string
	// mediaType is the Content-Type's media type; the charset parameter is
	// optional except for fortunes.
	mediaType string
	// sample is the request used by the header and Date checks.
	sample string
}

var testTypes = []testType{
	{name: "json", path: "/json", mediaType: "application/json", sample: "/json"},
	{name: "plaintext", path: "/plaintext", mediaType: "text/plain", sample: "/plaintext"},
	{name: "db", path: "/db", mediaType: "application/json", sample: "/db"},
	{name: "queries", path: "/queries", param: "queries", mediaType: "application/json", sample: "/queries?queries=2"},
	{name: "cached-queries", path: "/cached-queries", param: "count", mediaType: "application/json", sample: "/cached-queries?count=2"},
	{name: "fortunes", path: "/fortunes", mediaType: "text/html", sample: "/fortunes"},
	{name: "updates", path: "/updates", param: "queries", mediaType: "application/json", sample: "/updates?queries=2"},
}

func testByName(name string) *testType {
	for i := range testTypes {
		if testTypes[i].name == name {
			return &testTypes[i]
		}
	}
	return nil
}
