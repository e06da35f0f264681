module github.com/plinth-go/plinth/mail/smtpmail

go 1.26.0

require (
	github.com/plinth-go/plinth v0.1.0
	github.com/wneessen/go-mail v0.8.1
)

require (
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/term v0.48.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)
