package verify

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// maxBody bounds what is read of one response (500 world objects are ~20 KB).
const maxBody = 4 << 20

// response is one HTTP exchange, kept raw for the checks.
type response struct {
	url              string
	status           int
	header           http.Header
	contentLength    int64
	transferEncoding []string
	body             []byte
}

// newClient returns a client that keeps up to conns connections per host,
// never decompresses bodies and never follows redirects.
func newClient(conns int) *http.Client {
	tr := &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     0,
		DisableCompression:  true,
		IdleConnTimeout:     30 * time.Second,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// get requests path (with its query) from the server the way TFB's load
// generator does, announcing gzip support so that a server that compresses
// is caught.
func (v *verifier) get(ctx context.Context, path string) (*response, error) {
	u := v.cfg.BaseURL + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7")
	req.Header.Set("Accept-Encoding", "gzip, deflate")
	req.Header.Set("Connection", "keep-alive")
	res, err := v.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading body: %w", u, err)
	}
	return &response{
		url:              u,
		status:           res.StatusCode,
		header:           res.Header,
		contentLength:    res.ContentLength,
		transferEncoding: res.TransferEncoding,
		body:             body,
	}, nil
}

// burst sends n requests for path at once, each on its own connection, and
// returns how many succeeded with status 200 and the first few errors.
func (v *verifier) burst(ctx context.Context, path string, n int) (ok int, errs []string) {
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	for range n {
		wg.Go(func() {
			<-start
			res, err := v.get(ctx, path)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				errs = append(errs, err.Error())
			case res.status != http.StatusOK:
				errs = append(errs, fmt.Sprintf("GET %s: status %d", res.url, res.status))
			default:
				ok++
			}
		})
	}
	close(start)
	wg.Wait()
	return ok, errs
}
