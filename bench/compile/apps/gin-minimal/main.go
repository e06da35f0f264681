// Command gin-minimal is the compile benchmark's minimal app on gin: one GET
// route answering a short text, GET /hello/{name}.
package main

import (
	"log"
	"net/http"
	"os"

	"github.com/gin-gonic/gin"
)

func newHandler() http.Handler {
	r := gin.Default()
	r.GET("/hello/:name", hello)
	return r
}

func hello(c *gin.Context) {
	c.String(http.StatusOK, "Hello, "+c.Param("name")+"!\n")
}

func main() {
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = ":8080"
	}
	log.Fatal(newHandler().(*gin.Engine).Run(addr))
}
