package plinth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
)

// serveApp runs app.Serve on a loopback listener until the test ends and
// returns the base URL.
func serveApp(t *testing.T, app *plinth.App, scheme string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return scheme + "://" + ln.Addr().String()
}

func protoApp() *plinth.App {
	app := plinth.New()
	app.Logger = slog.New(slog.DiscardHandler)
	app.Config.Logger = app.Logger
	app.Config.ShutdownTimeout = 2 * time.Second
	app.Get("/proto", func(c *plinth.Ctx) error { return c.Text(200, c.Request().Proto) })
	return app
}

func get(t *testing.T, client *http.Client, url string) (*http.Response, string) {
	t.Helper()
	res, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestH2COptIn(t *testing.T) {
	app := protoApp()
	app.Config.H2C = true
	if refusedOnEngine(t, app, "h2c") {
		return
	}
	base := serveApp(t, app, "http")

	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	if res, body := get(t, &http.Client{Transport: tr}, base+"/proto"); res.ProtoMajor != 2 || body != "HTTP/2.0" {
		t.Fatalf("h2c: proto %s, handler saw %q", res.Proto, body)
	}
	// HTTP/1.1 clients are still served.
	if res, body := get(t, http.DefaultClient, base+"/proto"); res.ProtoMajor != 1 || body != "HTTP/1.1" {
		t.Fatalf("http/1.1: proto %s, handler saw %q", res.Proto, body)
	}
}

func TestH2COffByDefault(t *testing.T) {
	base := serveApp(t, protoApp(), "http")
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	if _, err := (&http.Client{Transport: tr}).Get(base + "/proto"); err == nil {
		t.Fatal("a prior-knowledge h2c request succeeded without Config.H2C")
	}
}

func TestTLSServesHTTP2(t *testing.T) {
	dir := t.TempDir()
	cert, key := writeSelfSigned(t, dir)
	app := protoApp()
	app.Config.TLSCertFile, app.Config.TLSKeyFile = cert, key
	if refusedOnEngine(t, app, "TLS") {
		return
	}
	base := serveApp(t, app, "https")

	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	if res, body := get(t, &http.Client{Transport: tr}, base+"/proto"); res.ProtoMajor != 2 || body != "HTTP/2.0" {
		t.Fatalf("TLS: proto %s, handler saw %q", res.Proto, body)
	}
}

// writeSelfSigned writes a certificate and key for 127.0.0.1 and returns
// their paths.
func writeSelfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "plinth test"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// TestTLSConnectionLimitClosesCleanly: past the connection
// limit over TLS the connection is closed before the handshake, without the
// plain-text 503 that a TLS client would read as a broken record ("wrong
// version number"); once the slot frees, TLS clients are served again.
func TestTLSConnectionLimitClosesCleanly(t *testing.T) {
	dir := t.TempDir()
	cert, key := writeSelfSigned(t, dir)
	app := protoApp()
	app.Config.TLSCertFile, app.Config.TLSKeyFile = cert, key
	app.Config.MaxConnections = 1
	if refusedOnEngine(t, app, "TLS") {
		return
	}
	base := serveApp(t, app, "https")
	addr := base[len("https://"):]

	holder, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	refused, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer refused.Close()
	tc := tls.Client(refused, &tls.Config{InsecureSkipVerify: true})
	_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
	err = tc.Handshake()
	if err == nil {
		t.Fatal("a handshake past the connection limit succeeded")
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("past the limit the connection was left hanging: %v", err)
	}
	for _, bad := range []string{"version", "record", "HTTP"} {
		if strings.Contains(err.Error(), bad) {
			t.Errorf("past the limit the TLS client read plain text: %v", err)
		}
	}
	holder.Close()
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer tr.CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for {
		res, err := (&http.Client{Transport: tr}).Get(base + "/proto")
		if err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the slot was freed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRapidResetLogsNoErrors: HTTP/2 streams reset by the
// client while their handlers wait (a rapid-reset flood, scaled down) end
// the handlers with context errors; none of them is logged as an error, and
// the server goes on serving. Each stream is reset once its handler has
// started, so every one of them reaches a handler.
func TestRapidResetLogsNoErrors(t *testing.T) {
	var logs syncLog
	app := protoApp()
	app.Logger = slog.New(slog.NewTextHandler(&logs, nil)) // info and above, as in production
	app.Config.H2C = true
	if refusedOnEngine(t, app, "h2c") {
		return
	}
	const streams = 50
	started := make(chan string, streams)
	var ended atomic.Int64
	app.Get("/slow", func(c *plinth.Ctx) error {
		defer ended.Add(1)
		started <- c.Query("n")
		<-c.Context().Done()
		return fmt.Errorf("waiting for the database: %w", c.Context().Err())
	})
	base := serveApp(t, app, "http")
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var mu sync.Mutex
	cancels := map[string]context.CancelFunc{}
	var wg sync.WaitGroup
	for i := range streams {
		n := strconv.Itoa(i)
		ctx, cancel := context.WithCancel(context.Background())
		mu.Lock()
		cancels[n] = cancel
		mu.Unlock()
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", base+"/slow?n="+n, nil)
			if res, err := client.Do(req); err == nil {
				res.Body.Close()
			}
		})
	}
	deadline := time.After(10 * time.Second)
	for range streams {
		select {
		case n := <-started:
			mu.Lock()
			cancels[n]() // reset the stream of a handler that is waiting
			mu.Unlock()
		case <-deadline:
			t.Fatalf("not every handler started")
		}
	}
	wg.Wait()
	for end := time.Now().Add(10 * time.Second); ended.Load() < streams && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if e := ended.Load(); e != streams {
		t.Fatalf("%d of %d handlers ended after their streams were reset", e, streams)
	}
	if res, body := get(t, client, base+"/proto"); res.StatusCode != 200 || body != "HTTP/2.0" {
		t.Errorf("after the resets: %d %q", res.StatusCode, body)
	}
	if n := strings.Count(logs.String(), "level=ERROR"); n != 0 {
		t.Errorf("%d error lines for %d reset streams:\n%.2000s", n, streams, logs.String())
	}
}

// syncLog is a log sink safe for the server's goroutines.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
