package mail

import "errors"

// ErrInvalid is wrapped by every error Message.Validate returns: the
// message was refused before anything was sent. It is permanent
// (IsPermanent): sending it again cannot succeed.
var ErrInvalid = errors.New("mail: invalid message")

// PermanentError is a delivery failure that retrying cannot cure: the
// server refused the message or a recipient for good (an SMTP 5xx reply),
// or the message is invalid. Transports return it (wrapped or not);
// IsPermanent finds it. Any other error is transient: a 4xx reply, a
// refused connection, a timeout.
type PermanentError struct {
	// Err is the failure, for example the server's reply.
	Err error
}

// Permanent wraps err as a PermanentError; nil stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// Error returns the wrapped error's text.
func (e *PermanentError) Error() string {
	if e.Err == nil {
		return "mail: permanent failure"
	}
	return e.Err.Error()
}

// Unwrap returns Err.
func (e *PermanentError) Unwrap() error { return e.Err }

// IsPermanent reports whether err is a permanent delivery failure: a
// PermanentError in its chain, or ErrInvalid.
func IsPermanent(err error) bool {
	if err == nil {
		return false
	}
	if _, ok := errors.AsType[*PermanentError](err); ok {
		return true
	}
	return errors.Is(err, ErrInvalid)
}
