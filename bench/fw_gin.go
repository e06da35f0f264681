package bench

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"
)

// newGin is gin.New() in release mode, without logger or recovery, with
// HandleMethodNotAllowed on so that it answers 405 like the others.
func newGin(routes []Route) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	engine := gin.New()
	engine.HandleMethodNotAllowed = true
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
	return engine
}
