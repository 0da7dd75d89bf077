package extract

import (
	"fmt"
	"strings"

	"golang.org/x/net/idna"

	"github.com/urikit/urikit/uri"
)

// CleanUserInput is uri.ParseUserInput with IDNA host mapping (IDNAHost):
// what a person typed or pasted becomes a strict URI, or an *uri.Error
// saying why not.
func CleanUserInput(s string) (uri.URI, error) {
	return uri.ParseUserInput(s, uri.WithHostMapper(IDNAHost))
}

// idnaProfile is IDNA2008 with the UTS #46 mapping a browser applies to
// what a person types (case folding, full-width and ideographic full
// stops), the bidi rule, and the hyphen and length checks of a host name.
var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.ValidateLabels(true),
	idna.CheckHyphens(true),
	idna.VerifyDNSLength(true),
	idna.Transitional(false),
)

// IDNAHost is a uri.HostMapper: it turns an internationalized host name
// into its ASCII form ("bücher.example" -> "xn--bcher-kva.example") with
// golang.org/x/net/idna. An IP literal in brackets is returned as it is.
func IDNAHost(host string) (string, error) {
	if strings.HasPrefix(host, "[") {
		return host, nil
	}
	ascii, err := idnaProfile.ToASCII(host)
	if err != nil {
		return "", fmt.Errorf("host name %q is not a valid internationalized domain name: %v", host, err)
	}
	return ascii, nil
}
