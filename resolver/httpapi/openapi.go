package httpapi

import (
	_ "embed"
	"net/http"
	"strconv"
)

// openAPI is the OpenAPI 3.1 description of every route, written by hand;
// TestOpenAPIMatchesRoutes holds it to the routing table and to the
// answers of a running server.
//
//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the OpenAPI 3.1 document served at /api/v1/openapi.json.
func OpenAPI() []byte { return append([]byte(nil), openAPI...) }

func (h *handler) serveOpenAPI(rw *respWriter, r *http.Request) {
	hd := rw.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Content-Length", strconv.Itoa(len(openAPI)))
	rw.WriteHeader(http.StatusOK)
	rw.Write(openAPI)
}
