package resolver_test

import (
	"encoding/json"
	"testing"

	"github.com/urikit/urikit/resolver"
)

// TestRecordMarshalJSONFixedPoint: the history stores Record.MarshalJSON's
// bytes directly (write.go); they must be what json.Marshal gives, HTML
// escaping and compaction included, so that entries written before and
// after that change read alike.
func TestRecordMarshalJSONFixedPoint(t *testing.T) {
	r := resolver.Record{URN: "urn:example:a<b>&c", Aliases: []string{"urn:example:\u2028x"},
		Locations: []resolver.Location{{URL: "https://example.org/?a=1&b=<2>", Type: "text/html", Label: "x\u2029"}},
		Metadata:  []byte(`{ "t" : "<&>\u2028",  "n": [1, 2] }`), Status: resolver.Active, Redirect: 302}
	for _, r := range []resolver.Record{r, {}} {
		direct, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		viaMarshal, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if string(direct) != string(viaMarshal) {
			t.Fatalf("MarshalJSON %s\njson.Marshal %s", direct, viaMarshal)
		}
	}
}
