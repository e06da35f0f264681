module github.com/plinth-go/plinth/api/conformance

go 1.26.0

replace github.com/plinth-go/plinth => ../..

require (
	github.com/getkin/kin-openapi v0.153.0
	github.com/plinth-go/plinth v0.0.0-00010101000000-000000000000
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
)

require (
	github.com/go-openapi/jsonpointer v0.22.5 // indirect
	github.com/go-openapi/swag/jsonname v0.25.5 // indirect
	go.yaml.in/yaml/v4 v4.0.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)
