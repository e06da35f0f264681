package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// redisServer is the rehearsal's own Redis, on a free port with its data in
// the temporary directory: append-only (fsync every second, no RDB
// snapshots), so that a restart keeps the sessions.
type redisServer struct {
	procs *procs
	dir   string
	port  int
	exit  chan struct{} // closed when the running server exited
}

// startRedis starts Redis and waits until it answers PING.
func startRedis(p *procs, dir string, port int) (*redisServer, error) {
	r := &redisServer{procs: p, dir: filepath.Join(dir, "redis"), port: port}
	if err := r.start(); err != nil {
		return nil, err
	}
	return r, nil
}

// start starts the server in the foreground, a child of the harness.
func (r *redisServer) start() error {
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--appendonly", "yes", "--appendfsync", "everysec", "--dir", r.dir, "--save", "",
		"--daemonize", "no", "--protected-mode", "no")
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return err
	}
	if err := r.procs.start(cmd, "redis.log", true); err != nil {
		return err
	}
	exit := make(chan struct{})
	r.exit = exit
	go func() {
		_ = cmd.Wait()
		r.procs.forget(cmd.Process.Pid)
		close(exit)
	}()
	return waitFor(10*time.Second, 20*time.Millisecond, func() error { return r.ping(context.Background()) })
}

// shutdown is `redis-cli -p PORT shutdown`; it returns once the server
// exited.
func (r *redisServer) shutdown() error {
	err := r.procs.run(exec.Command("redis-cli", "-p", strconv.Itoa(r.port), "shutdown"), "redis.log")
	select {
	case <-r.exit:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("redis did not exit 10 s after shutdown (%v)", err)
	}
}

// url is the URL of database db.
func (r *redisServer) url(db int) string {
	return fmt.Sprintf("redis://127.0.0.1:%d/%d", r.port, db)
}

// ping sends PING and wants +PONG (a loading server answers -LOADING).
func (r *redisServer) ping(ctx context.Context) error {
	_, err := r.command(ctx, "PING")
	return err
}

// command sends one inline command and returns the first reply line.
func (r *redisServer) command(ctx context.Context, cmd string) (string, error) {
	d := net.Dialer{Timeout: 300 * time.Millisecond}
	c, err := d.DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(r.port))
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := fmt.Fprintf(c, "%s\r\n", cmd); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "-") {
		return "", fmt.Errorf("redis: %s", line)
	}
	return line, nil
}

// keys lists the keys of database db matching pattern (SCAN, for the
// check that the app keys its rate limits by the client's address).
func (r *redisServer) keys(ctx context.Context, db int, pattern string) ([]string, error) {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(r.port))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	if _, err := fmt.Fprintf(c, "SELECT %d\r\n", db); err != nil {
		return nil, err
	}
	if _, err := readRESP(br); err != nil {
		return nil, err
	}
	var keys []string
	cursor := "0"
	for {
		fmt.Fprintf(c, "*6\r\n$4\r\nSCAN\r\n$%d\r\n%s\r\n$5\r\nMATCH\r\n$%d\r\n%s\r\n$5\r\nCOUNT\r\n$4\r\n1000\r\n",
			len(cursor), cursor, len(pattern), pattern)
		v, err := readRESP(br)
		if err != nil {
			return keys, err
		}
		arr, ok := v.([]any)
		if !ok || len(arr) != 2 {
			return keys, fmt.Errorf("redis: SCAN answered %v", v)
		}
		cursor, _ = arr[0].(string)
		items, _ := arr[1].([]any)
		for _, it := range items {
			if s, ok := it.(string); ok {
				keys = append(keys, s)
			}
		}
		if cursor == "0" || cursor == "" {
			return keys, nil
		}
	}
}

// readRESP reads one RESP2 value: a string, an int64, nil or []any.
func readRESP(br *bufio.Reader) (any, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return nil, fmt.Errorf("redis: empty reply")
	}
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-':
		return nil, fmt.Errorf("redis: %s", line[1:])
	case ':':
		return strconv.ParseInt(line[1:], 10, 64)
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return nil, err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(br, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return nil, err
		}
		arr := make([]any, n)
		for i := range arr {
			if arr[i], err = readRESP(br); err != nil {
				return nil, err
			}
		}
		return arr, nil
	}
	return nil, fmt.Errorf("redis: unexpected reply %q", line)
}
