package scheme

import (
	"strings"

	"github.com/urikit/urikit/uri"
)

func init() {
	for _, i := range []Info{
		{Name: "telnet", RFC: "RFC 4248", Title: "interactive Telnet session"},
		{Name: "rlogin", RFC: "RFC 1738 §3.8 (1993 URL draft)", Title: "interactive rlogin session"},
		{Name: "tn3270", RFC: "RFC 1738 §3.8 (1993 URL draft)", Title: "interactive IBM 3270 session"},
	} {
		register(i, func(u uri.URI) (Fields, error) {
			t, err := ParseTelnet(u)
			if err != nil {
				return nil, err
			}
			return t.Fields(), nil
		})
	}
}

// Telnet is a telnet, rlogin or tn3270 URL (RFC 4248 §2; RFC 1738 §3.8):
//
//	telnet://<user>:<password>@<host>:<port>/
type Telnet struct {
	Scheme         string // "telnet", "rlogin" or "tn3270"
	User, Password Opt    // advisory only: the user may have to type them (RFC 4248 §2)
	Host           string
	Port           int
}

// ParseTelnet reads a telnet, rlogin or tn3270 URL. The path must be empty
// or "/", and there is no query: an interactive session has no resources
// below it.
func ParseTelnet(u uri.URI) (Telnet, error) {
	sch, err := checkScheme(u, "telnet", "rlogin", "tn3270")
	if err != nil {
		return Telnet{}, err
	}
	host, port, err := hostPort(u, sch, DefaultPort(sch), false)
	if err != nil {
		return Telnet{}, err
	}
	if p := u.Path(); p != "" && p != "/" {
		return Telnet{}, errField(sch, "path", "must be empty or \"/\" (RFC 4248 §2)")
	}
	if u.HasQuery() {
		return Telnet{}, errField(sch, "query", "not allowed (RFC 4248 §2)")
	}
	t := Telnet{Scheme: sch, Host: host, Port: port}
	t.User, t.Password = optUser(u)
	return t, nil
}

// Fields returns user, password, host and port.
func (t Telnet) Fields() Fields {
	return Fields{{"user", t.User.value()}, {"password", t.Password.value()}, {"host", t.Host}, {"port", t.Port}}
}

// URI builds the URL with the final "/" (Scheme defaults to "telnet").
func (t Telnet) URI() (uri.URI, error) {
	sch := strings.ToLower(t.Scheme)
	if sch == "" {
		sch = "telnet"
	}
	if sch != "telnet" && sch != "rlogin" && sch != "tn3270" {
		return uri.URI{}, &Error{Scheme: "telnet", Reason: "cannot build scheme " + sch, Err: ErrWrongScheme}
	}
	if t.Host == "" {
		return uri.URI{}, errField(sch, "host", "empty")
	}
	if t.Password.Set && !t.User.Set {
		return uri.URI{}, errField(sch, "password", "given without a user")
	}
	if err := checkPort(sch, t.Port); err != nil {
		return uri.URI{}, err
	}
	var b strings.Builder
	b.WriteString(sch)
	b.WriteByte(':')
	buildAuthority(&b, t.User, t.Password, t.Host, t.Port, DefaultPort(sch))
	b.WriteByte('/')
	return parseBuilt(sch, b.String())
}
