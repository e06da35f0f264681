package main

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// response is what the generator needs of an HTTP/1.1 response.
type response struct {
	status int
	close  bool // the server said Connection: close (or spoke HTTP/1.0)
}

var (
	errMalformed = errors.New("malformed response")
	errNoLength  = errors.New("response without Content-Length or chunked encoding (read to close is not supported)")
	errTooLarge  = errors.New("response header block larger than the read buffer")
)

// Parser states.
const (
	stHead      = iota // waiting for the whole header block
	stBody             // remaining bytes of a Content-Length body
	stChunkSize        // a chunk-size line
	stChunkData        // remaining bytes of a chunk
	stChunkCRLF        // the CRLF after a chunk
	stTrailers         // trailer lines, then an empty line
)

// parser reads HTTP/1.1 responses incrementally from whatever bytes have
// arrived, without allocating and without copying bodies: the header block
// is looked at in place once it is whole, bodies are only counted. One
// parser per connection; head is set for HEAD requests.
type parser struct {
	state     int
	remaining int64
	resp      response
	head      bool
}

// feed consumes a prefix of b. It returns how many bytes it consumed and
// whether a response ended there (p.resp then holds it); n == 0 without done
// means more bytes are needed. full says b fills the caller's whole buffer,
// so that a header block or line that does not fit is an error rather than
// a wait.
func (p *parser) feed(b []byte, full bool) (n int, done bool, err error) {
	switch p.state {
	case stHead:
		end := bytes.Index(b, []byte("\r\n\r\n"))
		if end < 0 {
			if full {
				return 0, false, errTooLarge
			}
			return 0, false, nil
		}
		length, chunked, err := p.parseHead(b[:end+2])
		if err != nil {
			return 0, false, err
		}
		n = end + 4
		code := p.resp.status
		switch {
		case p.head || code == 204 || code == 304 || code < 200:
			return n, true, nil
		case chunked:
			p.state = stChunkSize
		case length > 0:
			p.state, p.remaining = stBody, length
		case length == 0:
			return n, true, nil
		default:
			return 0, false, errNoLength
		}
		return n, false, nil
	case stBody, stChunkData:
		k := int(min(p.remaining, int64(len(b))))
		p.remaining -= int64(k)
		if p.remaining > 0 {
			return k, false, nil
		}
		if p.state == stBody {
			p.state = stHead
			return k, true, nil
		}
		p.state = stChunkCRLF
		return k, false, nil
	case stChunkCRLF:
		if len(b) < 2 {
			return 0, false, nil
		}
		if b[0] != '\r' || b[1] != '\n' {
			return 0, false, fmt.Errorf("%w: no CRLF after a chunk", errMalformed)
		}
		p.state = stChunkSize
		return 2, false, nil
	case stChunkSize, stTrailers:
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if full || len(b) > 4096 {
				return 0, false, fmt.Errorf("%w: chunk-size or trailer line too long", errMalformed)
			}
			return 0, false, nil
		}
		line := trimCRLF(b[:i+1])
		if p.state == stTrailers {
			if len(line) == 0 {
				p.state = stHead
				return i + 1, true, nil
			}
			return i + 1, false, nil
		}
		if j := bytes.IndexByte(line, ';'); j >= 0 { // chunk extensions
			line = line[:j]
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil || size < 0 {
			return 0, false, fmt.Errorf("%w: chunk size %q", errMalformed, line)
		}
		if size == 0 {
			p.state = stTrailers
		} else {
			p.state, p.remaining = stChunkData, size
		}
		return i + 1, false, nil
	}
	return 0, false, fmt.Errorf("parser in unknown state %d", p.state)
}

// parseHead reads the status line and the headers that matter from a header
// block (each line ending in CRLF, without the empty line). length is -1
// when there is no Content-Length.
func (p *parser) parseHead(block []byte) (length int64, chunked bool, err error) {
	eol := bytes.IndexByte(block, '\n')
	line := trimCRLF(block[:eol+1])
	rest := block[eol+1:]
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, false, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	p.resp = response{close: line[7] == '0'}
	code := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return 0, false, fmt.Errorf("%w: status line %q", errMalformed, line)
		}
		code = code*10 + int(c-'0')
	}
	p.resp.status = code
	length = -1
	for len(rest) > 0 {
		eol = bytes.IndexByte(rest, '\n')
		line, rest = trimCRLF(rest[:eol+1]), rest[eol+1:]
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return 0, false, fmt.Errorf("%w: header line %q", errMalformed, line)
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, err := strconv.ParseInt(string(value), 10, 64) // no allocation: the conversion does not escape
			if err != nil || n < 0 {
				return 0, false, fmt.Errorf("%w: Content-Length %q", errMalformed, value)
			}
			length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			if bytes.EqualFold(value, []byte("close")) {
				p.resp.close = true
			} else if bytes.EqualFold(value, []byte("keep-alive")) {
				p.resp.close = false
			}
		}
	}
	return length, chunked, nil
}

func trimCRLF(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
