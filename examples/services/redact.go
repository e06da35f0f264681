package main

import (
	"context"
	"regexp"

	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/mail"
)

// addressPattern matches an e-mail address in an error's text: a run
// with an '@', up to the brackets, spaces and punctuation around it
// ("<ada@example.com>:" keeps its '<', '>' and ':').
var addressPattern = regexp.MustCompile(`[^\s<>()\[\],;:]*@[^\s<>()\[\],;:]*`)

// redactedAddress replaces an address in a redacted text.
const redactedAddress = "[address]"

// redactAddresses returns s with every e-mail address replaced by
// "[address]": an SMTP server's refusal names the recipient ("550 5.1.1
// <ada@example.com>: no such user"), and a job's errors are shown to
// operators and kept in the queue's table for as long as the job.
func redactAddresses(s string) string {
	return addressPattern.ReplaceAllLiteralString(s, redactedAddress)
}

// redactingMailer is the transport the queued mail's worker sends
// through: its errors keep their chain (mail.IsPermanent still tells a
// 5xx from a 4xx) but their text, which the queue records as the
// attempt's error and logs, names no address.
type redactingMailer struct {
	next mail.Mailer
}

// Send sends m through the wrapped transport; an error's text is
// redacted.
func (r redactingMailer) Send(ctx context.Context, m *mail.Message) error {
	if err := r.next.Send(ctx, m); err != nil {
		return &redactedError{err: err}
	}
	return nil
}

// redactedError is an error whose text has its addresses redacted.
type redactedError struct {
	err error
}

// Error returns the wrapped error's text without addresses.
func (e *redactedError) Error() string { return redactAddresses(e.err.Error()) }

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *redactedError) Unwrap() error { return e.err }

// redactJobErrors redacts the addresses in a job's recorded errors, for
// the ones recorded before redactingMailer (or by another kind).
func redactJobErrors(errs []jobs.AttemptError) []jobs.AttemptError {
	out := make([]jobs.AttemptError, len(errs))
	for i, e := range errs {
		e.Error = redactAddresses(e.Error)
		out[i] = e
	}
	return out
}
