package engine

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"net/textproto"
)

// maxPostHandlerReadBytes is how much of a body the handler left unread is
// discarded to keep the connection, as net/http does; more, and the
// connection closes after the response.
const maxPostHandlerReadBytes = 256 << 10

var errTrailerEOF = errors.New("http: unexpected EOF reading trailer")

// body is the request body, framed by Content-Length or chunked; one per
// connection, reset for every request.
type body struct {
	c       *conn
	remain  int64 // Content-Length framing: bytes left
	chunked bool
	cr      io.Reader // the chunked decoder
	eof     bool      // the whole body was read
	closed  bool
	err     error // sticky read error
	expect  bool  // 100 Continue still to send at the first Read
}

func (b *body) resetLength(c *conn, n int64) {
	*b = body{c: c, remain: n}
}

func (b *body) resetChunked(c *conn) {
	*b = body{c: c, chunked: true, cr: httputil.NewChunkedReader(c.br)}
}

// Read reads the body; the first Read of a request that expects 100-continue
// sends the 100 first.
func (b *body) Read(p []byte) (int, error) {
	switch {
	case b.closed:
		return 0, http.ErrBodyReadAfterClose
	case b.err != nil:
		return 0, b.err
	case b.eof:
		return 0, io.EOF
	}
	if b.expect {
		b.expect = false
		b.c.sendContinue()
	}
	if len(p) == 0 {
		return 0, nil
	}
	if len(b.c.out) > 0 && b.c.br.Buffered() == 0 {
		b.c.flush() // answers to earlier pipelined requests go before a wait
	}
	if !b.chunked {
		if int64(len(p)) > b.remain {
			p = p[:b.remain]
		}
		n, err := b.c.br.Read(p)
		b.remain -= int64(n)
		if b.remain == 0 {
			b.eof = true
			return n, io.EOF
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			b.fail(err)
		}
		return n, err
	}
	n, err := b.cr.Read(p)
	if err == io.EOF {
		if terr := b.readTrailer(); terr != nil {
			b.fail(terr)
			return n, terr
		}
		b.eof = true
		return n, io.EOF
	}
	if err != nil {
		b.fail(err)
	}
	return n, err
}

// fail makes err sticky and the connection close after the response: what
// is left of the stream cannot be trusted to be the next request.
func (b *body) fail(err error) {
	b.err = err
	b.c.closeAfter = true
	if isNetError(err) {
		b.c.broken()
	}
}

var crlf = []byte("\r\n")

// readTrailer reads the trailer section after the last chunk, as net/http
// does: an empty line, or fields ended by CRLF CRLF already buffered.
func (b *body) readTrailer() error {
	br := b.c.br
	buf, err := br.Peek(2)
	if bytes.Equal(buf, crlf) {
		_, _ = br.Discard(2)
		return nil
	}
	if len(buf) < 2 {
		return errTrailerEOF
	}
	if err != nil {
		return err
	}
	if !seeUpcomingDoubleCRLF(br) {
		return errors.New("http: suspiciously long trailer after chunked body")
	}
	hdr, err := textproto.NewReader(br).ReadMIMEHeader()
	if err != nil {
		if err == io.EOF {
			return errTrailerEOF
		}
		return err
	}
	req := b.c.req
	if req.Trailer == nil {
		req.Trailer = http.Header(hdr)
	} else {
		for k, v := range hdr {
			req.Trailer[k] = v
		}
	}
	return nil
}

// seeUpcomingDoubleCRLF is net/http's: it reads until CRLF CRLF ends what
// is buffered, the buffer is full, or the read fails.
func seeUpcomingDoubleCRLF(r *bufio.Reader) bool {
	for peekSize := 4; ; peekSize++ {
		buf, err := r.Peek(peekSize)
		if bytes.HasSuffix(buf, doubleCRLF) {
			return true
		}
		if err != nil {
			return false
		}
	}
}

var doubleCRLF = []byte("\r\n\r\n")

// Close marks the body closed; what is left is dealt with after the handler.
func (b *body) Close() error {
	b.closed = true
	return nil
}

// unread reports whether bytes of the body are left on the wire.
func (b *body) unread() bool { return !b.eof && b.err == nil }

// discard reads what is left of the body, up to maxPostHandlerReadBytes; it
// reports whether the body ended.
func (b *body) discard() bool {
	if !b.chunked && b.remain > maxPostHandlerReadBytes {
		return false
	}
	closed := b.closed
	b.closed = false
	b.expect = false
	var scratch [512]byte
	var total int64
	for total <= maxPostHandlerReadBytes {
		n, err := b.Read(scratch[:])
		total += int64(n)
		if err == io.EOF {
			b.closed = closed
			return true
		}
		if err != nil {
			return false
		}
	}
	return false
}
