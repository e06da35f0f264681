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
	req     *http.Request // the request whose Trailer a trailer fills; nil once its handler returned
	remain  int64         // Content-Length framing: bytes left
	chunked bool
	closing bool      // Content-Length framing and the request asks to close: Close reads nothing
	cr      io.Reader // the chunked decoder
	eof     bool      // the whole body was read
	closed  bool
	err     error // sticky read error
	expect  bool  // 100 Continue still to send at the first Read
	// ecr: the request expects 100-continue (net/http wraps its body in an
	// expectContinueReader); readEOF: the handler's own reads reached the
	// end (that reader's sawEOF). An ecr body not read to its end by the
	// handler closes the connection after the response.
	ecr, readEOF bool
	earlyClose   bool // Close gave up on the rest: the connection closes
}

func (b *body) resetLength(c *conn, n int64) {
	*b = body{c: c, req: c.req, remain: n}
}

func (b *body) resetChunked(c *conn) {
	*b = body{c: c, req: c.req, chunked: true, cr: httputil.NewChunkedReader(c.br)}
}

// Read reads the body; the first Read of a request that expects 100-continue
// sends the 100 first.
func (b *body) Read(p []byte) (int, error) {
	if b.expect && !b.closed && b.err == nil && !b.eof {
		b.expect = false
		b.c.sendContinue()
	}
	n, err := b.read(p)
	if err == io.EOF {
		b.readEOF = true
	}
	return n, err
}

// read is Read without the 100 Continue: the server's own discards read
// the body as net/http's do, past its expectContinueReader.
func (b *body) read(p []byte) (int, error) {
	switch {
	case b.closed:
		return 0, http.ErrBodyReadAfterClose
	case b.err != nil:
		return 0, b.err
	case b.eof:
		return 0, io.EOF
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
	req := b.req
	if req == nil {
		return nil // read after the handler returned: nobody is left to see it
	}
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

// Close is net/http's for a server's request body: what is left is read
// and discarded, up to maxPostHandlerReadBytes, looking for the end (and
// the trailer), so that the connection can serve its next request; a body
// with more left than that is given up on (earlyClose: the connection
// closes after the response), and so is nothing read of a body framed by
// Content-Length whose request asks to close the connection. Later Reads
// fail with http.ErrBodyReadAfterClose. The server closes the body itself
// once the response is out (see conn.closeBody), as net/http's
// finishRequest does.
func (b *body) Close() error {
	if b.closed {
		return nil
	}
	var err error
	switch {
	case b.eof:
	case b.err != nil:
		err = b.err
	case !b.chunked && b.closing:
	case !b.chunked && b.remain > maxPostHandlerReadBytes:
		b.earlyClose = true
	default:
		var n int64
		n, err = b.discard(maxPostHandlerReadBytes)
		if err == io.EOF {
			err = nil
		}
		if n == maxPostHandlerReadBytes {
			b.earlyClose = true
		}
	}
	b.closed = true
	return err
}

// unread reports whether bytes of the body are left on the wire.
func (b *body) unread() bool { return !b.eof && b.err == nil }

// discard reads and drops up to limit bytes of the body, as
// io.CopyN(io.Discard, body, limit) does in net/http: it returns how many,
// and nil when limit bytes were read (the end may be further), io.EOF when
// the body ended first, or the read error.
func (b *body) discard(limit int64) (int64, error) {
	if b.c.scratch == nil {
		b.c.scratch = make([]byte, 2048) // once per connection that discards
	}
	scratch := b.c.scratch
	var n int64
	for n < limit {
		k, err := b.read(scratch[:min(int64(len(scratch)), limit-n)])
		n += int64(k)
		if err != nil {
			if n == limit {
				return n, nil
			}
			return n, err
		}
	}
	return n, nil
}

// discardForResponse is what net/http does with a body the handler left
// unread when the response head is written and the connection is to stay
// open (chunkWriter.writeHeader): a body closed by the handler before its
// end closes the connection; one with maxPostHandlerReadBytes or more left
// by its Content-Length, or more than that when read, is too big (the
// connection closes, after a lingering half-close); the rest is read and
// dropped, and a read error closes the connection. It reports whether the
// connection may stay open, and whether the body was too big.
func (b *body) discardForResponse() (keep, tooBig bool) {
	switch {
	case b.closed:
		return false, false
	case !b.chunked && b.remain >= maxPostHandlerReadBytes:
		return false, true
	}
	_, err := b.discard(maxPostHandlerReadBytes + 1)
	switch err {
	case nil:
		return false, true
	case io.EOF:
		return true, false
	}
	return false, false
}
