package platform

import (
	"net/http"
	"strconv"
	"time"

	"github.com/plinth-go/plinth"
)

// Timing returns middleware (an interceptor, in NestJS's words) that adds
// a Server-Timing header naming the module and the time its handler took
// until it started the response ("orders;dur=0.412", in milliseconds). An
// error the handler returns is rendered by the App outside the middleware,
// without the header.
func Timing(name string) plinth.Middleware {
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			prev := c.Writer()
			tw := &timingWriter{ResponseWriter: prev, name: name, start: time.Now()}
			c.SetWriter(tw)
			err := next(c)
			c.SetWriter(prev)
			return err
		}
	}
}

// timingWriter sets the Server-Timing header when the response starts.
type timingWriter struct {
	http.ResponseWriter
	name    string
	start   time.Time
	started bool
}

func (w *timingWriter) stamp() {
	if w.started {
		return
	}
	w.started = true
	ms := float64(time.Since(w.start).Microseconds()) / 1000
	w.Header().Add("Server-Timing", w.name+";dur="+strconv.FormatFloat(ms, 'f', 3, 64))
}

// WriteHeader stamps the header, then writes the status.
func (w *timingWriter) WriteHeader(code int) {
	w.stamp()
	w.ResponseWriter.WriteHeader(code)
}

// Write stamps the header, then writes p.
func (w *timingWriter) Write(p []byte) (int, error) {
	w.stamp()
	return w.ResponseWriter.Write(p)
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *timingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
