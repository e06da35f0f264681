package httpserve

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
)

// Client holds keep-alive connections to a server and sends a scenario's
// requests over them, one at a time on each connection, checking every
// status: the load of cmd/instr and cmd/instr-gate (it allocates little and
// parses only what it must, so that it hardly competes with the server).
type Client struct {
	reqs  []Request
	conns []*clientConn
}

type clientConn struct {
	net.Conn
	br *bufio.Reader
}

// Dial opens conns connections to addr.
func Dial(addr string, reqs []Request, conns int) (*Client, error) {
	if len(reqs) == 0 {
		return nil, fmt.Errorf("no requests")
	}
	c := &Client{reqs: reqs}
	for range conns {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.conns = append(c.conns, &clientConn{Conn: nc, br: bufio.NewReaderSize(nc, 16<<10)})
	}
	return c, nil
}

// Send sends n requests over the connections in parallel, taking the
// scenario's requests in turn from the first: when n is a multiple of their
// number, each is sent n/len times whichever connection carries it.
func (c *Client) Send(n int) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, len(c.conns))
	for _, cc := range c.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				rq := c.reqs[i%int64(len(c.reqs))]
				if _, err := cc.Write(rq.Raw); err != nil {
					errs <- err
					return
				}
				if err := ReadResponse(cc.br, rq.Status); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// SendPaced sends n requests one at a time on the first connection, each
// once wait returns (cmd/instr-gate waits until the server process is idle).
func (c *Client) SendPaced(n int, wait func() error) error {
	cc := c.conns[0]
	for i := range n {
		if err := wait(); err != nil {
			return err
		}
		rq := c.reqs[i%len(c.reqs)]
		if _, err := cc.Write(rq.Raw); err != nil {
			return err
		}
		if err := ReadResponse(cc.br, rq.Status); err != nil {
			return err
		}
	}
	return nil
}

// SendPipelined sends n requests as Send does, but pipelined: on each
// connection a writer keeps up to window requests ahead of the responses
// read, so that the server finds its next request already waiting.
func (c *Client) SendPipelined(n, window int) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(c.conns))
	for _, cc := range c.conns {
		wg.Add(2)
		sent := make(chan int, window) // the statuses of the requests in flight
		stop := make(chan struct{})
		go func() { // writer
			defer wg.Done()
			defer close(sent)
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				rq := c.reqs[i%int64(len(c.reqs))]
				select {
				case sent <- rq.Status:
				case <-stop:
					return
				}
				if _, err := cc.Write(rq.Raw); err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() { // reader
			defer wg.Done()
			for status := range sent {
				if err := ReadResponse(cc.br, status); err != nil {
					errs <- err
					close(stop)
					for range sent {
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// Close closes the connections.
func (c *Client) Close() error {
	var first error
	for _, cc := range c.conns {
		if err := cc.Close(); err != nil && first == nil {
			first = err
		}
	}
	c.conns = nil
	return first
}

// Load sends n of the requests to addr over conns keep-alive connections
// (Dial, Send, Close); with n 0 it connects and closes only.
func Load(addr string, reqs []Request, n, conns int) error {
	c, err := Dial(addr, reqs, conns)
	if err != nil {
		return err
	}
	err = c.Send(n)
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadResponse reads one response with a Content-Length or chunked body and
// checks its status.
func ReadResponse(br *bufio.Reader, status int) error {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if len(line) < 12 || int(line[9]-'0')*100+int(line[10]-'0')*10+int(line[11]-'0') != status {
		return fmt.Errorf("unexpected status line %q (want %d)", bytes.TrimSpace(line), status)
	}
	length, chunked := -1, false
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 {
			break
		}
		k, v, _ := bytes.Cut(line, []byte(":"))
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			length, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = true
		}
	}
	if !chunked {
		if length < 0 {
			return fmt.Errorf("response without Content-Length or chunked body")
		}
		_, err := io.CopyN(io.Discard, br, int64(length))
		return err
	}
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil {
			return err
		}
		if _, err := io.CopyN(io.Discard, br, size+2); err != nil {
			return err
		}
		if size == 0 {
			return nil
		}
	}
}
