// Package bodybind is the request body binding that the core's Ctx.Bind and
// the api package's binders share: which media types a body may have and
// the 415 that refuses the others, JSON decoding with pooled decoders and
// the wording of its 400 (with the byte offset of a syntax error), and the
// classification of form parsing failures (413, 400, 500, or a body read
// error to pass on). It knows no plinth type: callers turn a Failure into
// their problem (plinth.Error, or *plinth.BodyError for a read failure).
package bodybind

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Failure is a binding failure: the status and detail of the problem to
// send, wrapping Err. Status 0 means Err is a failure to read the body,
// which the caller passes on as a *plinth.BodyError (413 over the limit,
// 408 too slow, 400 for the rest).
type Failure struct {
	Status int
	Detail string
	Err    error
}

// MediaType returns the media type of a Content-Type header value, lower
// case, without parameters ("" for none).
func MediaType(contentType string) string {
	media, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(media))
}

// IsJSON reports whether a body of media type media is read as JSON:
// application/json, application/*+json, or none.
func IsJSON(media string) bool {
	return media == "" || media == "application/json" || strings.HasSuffix(media, "+json")
}

// IsForm reports whether media is a form body's media type.
func IsForm(media string) bool {
	return media == "application/x-www-form-urlencoded" || media == "multipart/form-data"
}

// NotJSON is the 415 of a body that must be JSON and has media type media.
func NotJSON(media string) Failure {
	return Failure{Status: http.StatusUnsupportedMediaType, Detail: "the request body must be application/json, not " + media}
}

// NotForm is the 415 of a body that must be a form.
func NotForm() Failure {
	return Failure{Status: http.StatusUnsupportedMediaType,
		Detail: "the request body must be application/x-www-form-urlencoded or multipart/form-data"}
}

// NotJSONOrForm is the 415 of a body that may be JSON or a form (Ctx.Bind).
func NotJSONOrForm(media string) Failure {
	return Failure{Status: http.StatusUnsupportedMediaType,
		Detail: "the request body must be application/json, application/x-www-form-urlencoded or multipart/form-data, not " + media}
}

// MalformedJSON is the 400 of a body that is not valid JSON (err from
// DecodeJSON, for which IsSyntax holds, or ErrTrailing).
func MalformedJSON(err error) Failure {
	return Failure{Status: http.StatusBadRequest, Detail: "the request body is not valid JSON: " + JSONErrorText(err), Err: err}
}

// FormFailure classifies an error of http.Request.ParseForm or
// ParseMultipartForm (one that is not already the caller's body read error):
// a body over its limit or read too slowly is a read failure (Status 0), too
// many parts a 413, a spilled file the server could not store a 500 (the
// server's failure, logged with its cause), the rest a 400 with detail.
func FormFailure(err error, detail string) Failure {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok || errors.Is(err, os.ErrDeadlineExceeded) {
		return Failure{Err: err}
	}
	if errors.Is(err, multipart.ErrMessageTooLarge) {
		return Failure{Status: http.StatusRequestEntityTooLarge, Detail: "the multipart body has too many parts or is too large", Err: err}
	}
	if _, ok := errors.AsType[*fs.PathError](err); ok {
		// The server could not store a spilled file (TMPDIR missing or
		// full): its failure, not a malformed body.
		return Failure{Status: http.StatusInternalServerError, Detail: "the upload could not be stored", Err: err}
	}
	return Failure{Status: http.StatusBadRequest, Detail: detail, Err: err}
}

// TooManyFiles is the 413 of a multipart body with more than max files.
func TooManyFiles(max int) Failure {
	return Failure{Status: http.StatusRequestEntityTooLarge, Detail: "at most " + strconv.Itoa(max) + " files are accepted"}
}

// MaxPooledBody is the largest body (and body buffer) whose decoder or
// buffer goes back to its pool.
const MaxPooledBody = 64 << 10

// ErrTrailing is the error of a body with more than blanks after its value.
var ErrTrailing = errors.New("unexpected data after the JSON value")

// IsSyntax reports whether err from DecodeJSON means malformed JSON (a
// 400) rather than a value that does not fit the Go type.
func IsSyntax(err error) bool {
	if _, ok := errors.AsType[*json.SyntaxError](err); ok {
		return true
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || err == ErrTrailing
}

// JSONErrorText words a decoding error for a 400's detail: a syntax error
// with its offset, a truncated body, or encoding/json's text.
func JSONErrorText(err error) string {
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return se.Error() + " (at byte " + strconv.FormatInt(se.Offset, 10) + ")"
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// pooledDecoder is a json.Decoder over a resettable reader. encoding/json's
// Decoder keeps its decode state, scanner stack and buffer between values,
// which json.Unmarshal allocates anew each call; a decoder goes back to its
// pool only after a clean decode that consumed its input exactly, so that
// nothing of one body is left for the next.
type pooledDecoder struct {
	r        bytes.Reader
	dec      *json.Decoder
	leftover int64 // blanks of the previous body that the decoder buffered but did not consume
}

// decoderPools hold pooledDecoders: [0] refuse unknown fields, [1] allow
// them.
var decoderPools [2]sync.Pool

// DecodeJSON decodes data (one JSON value, then blanks) into target with a
// pooled decoder, refusing unknown members unless allowUnknown. Anything
// but blanks after the value is ErrTrailing.
func DecodeJSON(data []byte, target any, allowUnknown bool) error {
	pool := &decoderPools[0]
	if allowUnknown {
		pool = &decoderPools[1]
	}
	pd, _ := pool.Get().(*pooledDecoder)
	if pd == nil {
		pd = &pooledDecoder{}
		pd.dec = json.NewDecoder(&pd.r)
		if !allowUnknown {
			pd.dec.DisallowUnknownFields()
		}
	}
	pd.r.Reset(data)
	start := pd.dec.InputOffset() + pd.leftover // where data begins in the decoder's stream
	err := pd.dec.Decode(target)
	if err != nil {
		if se, ok := err.(*json.SyntaxError); ok {
			// The decoder counts from the start of its stream, which
			// holds the earlier bodies: make the offset data's own. The
			// decoder is dropped, and its error with it.
			se.Offset -= start
		}
		return err // the decoder may hold a sticky error: drop it
	}
	end := pd.dec.InputOffset() - start // the end of the value in data
	if end < 0 || end > int64(len(data)) || !Blank(data[end:]) {
		return ErrTrailing
	}
	if len(data) <= MaxPooledBody {
		pd.leftover = int64(len(data)-pd.r.Len()) - end
		pd.r.Reset(nil)
		pool.Put(pd)
	}
	return nil
}

// Blank reports whether b holds JSON whitespace only.
func Blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// The form limits of a binder that has no configuration (Ctx.Bind), the
// api package's defaults.
const (
	// DefaultMultipartMemory is how much of a multipart body is kept in
	// memory; the rest of its files spill to temporary files.
	DefaultMultipartMemory = 8 << 20
	// DefaultMaxFiles is how many files a multipart body may carry.
	DefaultMaxFiles = 16
)
