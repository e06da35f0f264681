// Package mail sends templated mail: a Message (addresses, subject, a text
// part, an optional HTML part and attachments), the Mailer interface that
// transports implement, rendering of name.txt and name.html templates from
// an fs.FS with layouts and translations (Templates), and sending through
// the job queue (Queued, HandleQueued).
//
// Every Mailer checks a message before anything leaves the process
// (Message.Validate): a CR, LF or NUL in any header or address, an address
// net/mail does not parse, a sender or recipient address an SMTP envelope
// cannot carry safely (RFC 5321's Mailbox, stricter for quoted local
// parts: never a space, '<' or '>'), an empty To or an empty Text is an
// error wrapping ErrInvalid, and nothing is sent. The MIME form is built here with the
// standard library (Message.WriteTo): multipart/alternative with the text
// part first and the HTML part second, both UTF-8 and quoted-printable,
// multipart/mixed around it when there are attachments, non-ASCII subjects
// and display names RFC 2047-encoded, and Date and Message-ID headers.
//
// Transports: LogMailer (the development default, "log:"), Memory (tests;
// the mailtest package asserts on it) and, in the mail/smtpmail module, SMTP
// through github.com/wneessen/go-mail. Open resolves PLINTH_MAIL_URL in one
// place; the SMTP opener comes from the smtp module (Config.Openers), so an
// application that does not send over SMTP adds nothing to its build list.
//
// A transport reports a failure that retrying cannot cure (an SMTP 5xx
// reply, an invalid message) as a PermanentError; IsPermanent tells it from
// a transient one (an SMTP 4xx reply, a network error). HandleQueued maps
// the first to jobs.Discard and retries the second with the queue's backoff.
//
// The package depends on the standard library and the core module only.
package mail
