package main

import (
	"bufio"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

type sseEvent struct{ id, event, data string }

// readEvents reads the stream, sending each event and each comment (as an
// event named ":") on the channel.
func readEvents(r io.Reader, out chan<- sseEvent) {
	defer close(out)
	sc := bufio.NewScanner(r)
	var e sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if e != (sseEvent{}) {
				out <- e
			}
			e = sseEvent{}
		case strings.HasPrefix(line, ":"):
			out <- sseEvent{event: ":", data: line}
		case strings.HasPrefix(line, "id: "):
			e.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			e.event = line[7:]
		case strings.HasPrefix(line, "data: "), line == "data:":
			e.data = strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
		}
	}
}

func openEvents(t *testing.T, url string, header ...string) (*http.Response, <-chan sseEvent) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, Content-Type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var body io.Reader = res.Body
	if res.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		body = zr
	}
	out := make(chan sseEvent, 64)
	go readEvents(body, out)
	return res, out
}

// nextTick returns the next tick, skipping comments, within d.
func nextTick(t *testing.T, ch <-chan sseEvent, d time.Duration) sseEvent {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatal("stream ended")
			}
			if e.event == "tick" {
				return e
			}
		case <-timeout:
			t.Fatalf("no tick within %s", d)
		}
	}
}

func TestEventsTicks(t *testing.T) {
	t.Parallel()
	addr := serveApp(t)
	start := time.Now()
	_, ch := openEvents(t, "http://"+addr+"/events")
	for want := 1; want <= 3; want++ {
		e := nextTick(t, ch, time.Second)
		if e.id != strings.TrimSpace(e.data) || e.id != string(rune('0'+want)) {
			t.Errorf("tick %d: id %q data %q", want, e.id, e.data)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("three ticks took %s, want about 200 ms", d)
	}
}

func TestEventsResume(t *testing.T) {
	t.Parallel()
	addr := serveApp(t)
	cases := []struct {
		name, query, header, want string
	}{
		{"Last-Event-ID", "", "41", "42"},
		{"lastEventId query", "?lastEventId=7", "", "8"},
		{"not a number", "", "abc", "1"},
		{"negative", "", "-5", "1"},
		// Bad and hostile ids are ignored: the stream starts from 1, never
		// at a wrapped, negative id.
		{"int64 max", "", "9223372036854775807", "1"},
		{"int64 max in the query", "?lastEventId=9223372036854775807", "", "1"},
		{"just below int64 max", "", "9223372036854775806", "1"},
		{"past int64", "", "99999999999999999999", "1"},
		{"int64 min", "", "-9223372036854775808", "1"},
		{"at maxEventID", "", "9007199254740991", "1"},
		{"zero", "", "0", "1"},
		{"hexadecimal", "", "0x10", "1"},
		{"exponent", "", "1e3", "1"},
		{"fraction", "", "41.5", "1"},
		{"Arabic-Indic digits", "", "٤١", "1"},
		{"header wins over the query", "?lastEventId=7", "41", "42"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var h []string
			if tc.header != "" {
				h = []string{"Last-Event-ID", tc.header}
			}
			_, ch := openEvents(t, "http://"+addr+"/events"+tc.query, h...)
			if e := nextTick(t, ch, time.Second); e.id != tc.want {
				t.Errorf("first id %q, want %q", e.id, tc.want)
			}
		})
	}
}

// TestEventsLastID: a stream resumed just below maxEventID sends
// maxEventID, then ends instead of sending a larger id.
func TestEventsLastID(t *testing.T) {
	t.Parallel()
	addr := serveApp(t)
	_, ch := openEvents(t, "http://"+addr+"/events", "Last-Event-ID", "9007199254740990")
	if e := nextTick(t, ch, time.Second); e.id != "9007199254740991" {
		t.Fatalf("first id %q, want 9007199254740991 (maxEventID)", e.id)
	}
	timeout := time.After(2 * time.Second)
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return
			}
			if e.event == "tick" {
				t.Fatalf("a tick after maxEventID: %+v", e)
			}
		case <-timeout:
			t.Fatal("the stream did not end after maxEventID")
		}
	}
}

func TestEventsHeartbeat(t *testing.T) {
	t.Parallel()
	addr := serveApp(t)
	_, ch := openEvents(t, "http://"+addr+"/events")
	timeout := time.After(3 * time.Second)
	for {
		select {
		case e := <-ch:
			if e.event == ":" {
				return
			}
		case <-timeout:
			t.Fatal("no comment heartbeat within 3 s")
		}
	}
}

func TestEventsGzip(t *testing.T) {
	t.Parallel()
	addr := serveApp(t)
	start := time.Now()
	res, ch := openEvents(t, "http://"+addr+"/events", "Accept-Encoding", "gzip")
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", res.Header.Get("Content-Encoding"))
	}
	if e := nextTick(t, ch, time.Second); e.id != "1" {
		t.Errorf("first id %q", e.id)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("first gzip tick after %s", d)
	}
}
