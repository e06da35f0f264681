package suite

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gin-contrib/requestid"
	"github.com/gin-gonic/gin"
)

// newGin is gin.New() in release mode, without logger or recovery, with
// HandleMethodNotAllowed on so that it answers 405 like the others.
func newGin(routes []Route) http.Handler {
	engine := GinEngine()
	ginRoutes(engine, routes)
	return engine
}

// securedGin uses gin-contrib/requestid, a header middleware and a context
// deadline middleware (gin has no timeout middleware of its own).
func securedGin(routes []Route, _ bool) http.Handler {
	engine := GinEngine()
	headers := SecurityHeaderSet()
	engine.Use(requestid.New(),
		func(c *gin.Context) {
			for k, v := range headers {
				c.Header(k, v)
			}
		},
		func(c *gin.Context) {
			ctx, cancel := context.WithTimeout(c.Request.Context(), HandlerTimeout)
			defer cancel()
			c.Request = c.Request.WithContext(ctx)
			c.Next()
		})
	ginRoutes(engine, routes)
	return engine
}

// GinEngine is gin.New() in release mode, answering 405 where a path
// has other methods: the gin of every benchmark (the router scenarios here,
// the validated-json ones in internal/validated).
func GinEngine() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	engine := gin.New()
	engine.HandleMethodNotAllowed = true
	return engine
}

func ginRoutes(engine *gin.Engine, routes []Route) {
	for _, rt := range routes {
		var h gin.HandlerFunc
		switch rt.Kind {
		case KindHello:
			h = func(c *gin.Context) { c.String(http.StatusOK, Hello) }
		case KindAccount:
			h = func(c *gin.Context) {
				id, err := strconv.Atoi(c.Param("id"))
				if err != nil {
					c.String(http.StatusBadRequest, InvalidID)
					return
				}
				acct := NewAccount(id)
				c.JSON(http.StatusOK, &acct)
			}
		default:
			body := rt.Body
			h = func(c *gin.Context) { c.Writer.Write(body) }
		}
		engine.Handle(rt.Method, rt.Path, h)
	}
}
