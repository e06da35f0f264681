package mail_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/mailtest"
)

// A message rendered from templates (the subject from the text template's
// "subject" block) and sent through the memory transport, then read back
// from its MIME form.
func ExampleTemplates() {
	files := fstest.MapFS{
		"mail/welcome.txt":  {Data: []byte(`{{ define "subject" }}Welcome, {{ .Name }}{{ end }}Hello {{ .Name }}!`)},
		"mail/welcome.html": {Data: []byte(`<p>Hello {{ .Name }}!</p>`)},
	}
	templates, err := mail.NewTemplates(mail.TemplatesConfig{Files: files})
	if err != nil {
		panic(err)
	}
	m := &mail.Message{From: "Shop <noreply@shop.example>", To: []string{"zoe@example.com"}}
	if err := templates.Render(m, "welcome", "en", map[string]string{"Name": "Zoë <3"}); err != nil {
		panic(err)
	}
	mem := &mail.Memory{}
	if err := mem.Send(context.Background(), m); err != nil {
		panic(err)
	}
	p, err := mailtest.Parse(mem.Raw()[0])
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Subject)
	fmt.Println(p.Alternative)
	fmt.Println(p.Text)
	fmt.Println(p.HTML)
	// Output:
	// Welcome, Zoë <3
	// [text/plain text/html]
	// Hello Zoë <3!
	// <p>Hello Zoë &lt;3!</p>
}

// Validate refuses a header injection before anything is sent.
func ExampleMessage_Validate() {
	m := &mail.Message{
		From:    "noreply@shop.example",
		To:      []string{"zoe@example.com"},
		Subject: "Hi\r\nBcc: everyone@example.com",
		Text:    "hello",
	}
	fmt.Println(m.Validate())
	// Output:
	// mail: invalid message: Subject "Hi\r\nBcc: everyone@example.com" contains a CR, LF or NUL
}
