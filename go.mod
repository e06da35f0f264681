module github.com/plinth-go/plinth

go 1.26.0

require (
	golang.org/x/crypto v0.59.0
	golang.org/x/net v0.62.0
	golang.org/x/term v0.48.0
	golang.org/x/text v0.44.0
)

require golang.org/x/sys v0.50.0 // indirect
