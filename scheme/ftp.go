package scheme

import (
	"strings"

	"github.com/urikit/urikit/uri"
)

func init() {
	register(Info{Name: "ftp", Hierarchical: true, RFC: "RFC 1738 §3.2", Title: "File Transfer Protocol"},
		func(u uri.URI) (Fields, error) {
			f, err := ParseFTP(u)
			if err != nil {
				return nil, err
			}
			return f.Fields(), nil
		})
}

// FTP is an ftp URL (RFC 1738 §3.2):
//
//	ftp://<user>:<password>@<host>:<port>/<cwd1>/.../<cwdN>/<name>;type=<typecode>
type FTP struct {
	// User and Password are unset when the URL names none; the anonymous
	// convention of RFC 1738 §3.2.1 is the client's business.
	User, Password Opt
	Host           string
	Port           int
	// Segments are the decoded <cwd1>...<cwdN>, <name>: each is one CWD or
	// RETR argument (RFC 1738 §3.2.2), so a "/" decoded from %2F stays
	// inside its segment.
	Segments []string
	// Typecode is 'a' (ASCII), 'i' (image), 'd' (directory listing), or 0
	// when the URL has no ";type=" (RFC 1738 §3.2.3). Read in lower case.
	Typecode byte
}

// Path returns the segments joined by "/" (the "path" field).
func (f FTP) Path() string { return strings.Join(f.Segments, "/") }

// ParseFTP reads an ftp URL. A query is an error: RFC 1738's ftpurl has none.
func ParseFTP(u uri.URI) (FTP, error) {
	const sch = "ftp"
	if _, err := checkScheme(u, sch); err != nil {
		return FTP{}, err
	}
	host, port, err := hostPort(u, sch, DefaultPort(sch), false)
	if err != nil {
		return FTP{}, err
	}
	if u.HasQuery() {
		return FTP{}, errField(sch, "query", "not allowed in an ftp URL (RFC 1738 §3.2)")
	}
	f := FTP{Host: host, Port: port}
	f.User, f.Password = optUser(u)
	p := u.Path()
	// ";type=" ends the last segment; a %3B is data, not the delimiter.
	// RFC 1738 §5: ftpurl = "ftp://" login [ "/" fpath [ ";type=" ftptype ]],
	// so the typecode can only close the path. A ";type=" anywhere before
	// that (ftp://h/a;type=i/b, ftp://h/a;type=i/b;type=a) sits in a CWD
	// component, where ";" is reserved and must be encoded (§3.2.2): the URL
	// is not an ftp URL, whichever ";type=" comes last.
	if i := strings.Index(p, ";type="); i >= 0 {
		code := p[i+len(";type="):]
		if strings.IndexByte(code, '/') >= 0 {
			return FTP{}, errField(sch, "typecode", "\";type=\" must close the path, not a directory segment (RFC 1738 §3.2.2, §5)")
		}
		if len(code) != 1 || strings.IndexByte("aidAID", code[0]) < 0 {
			return FTP{}, errField(sch, "typecode", "\""+code+"\" is not a, i or d (RFC 1738 §3.2.2)")
		}
		f.Typecode = lowerByte(code[0])
		p = p[:i]
	}
	p = strings.TrimPrefix(p, "/")
	if p != "" {
		raw := strings.Split(p, "/")
		f.Segments = make([]string, len(raw))
		for i, s := range raw {
			f.Segments[i] = decode(s)
		}
	}
	return f, nil
}

// Fields returns user, password, host, port, path and typecode.
func (f FTP) Fields() Fields {
	var tc any
	if f.Typecode != 0 {
		tc = string(f.Typecode)
	}
	return Fields{{"user", f.User.value()}, {"password", f.Password.value()}, {"host", f.Host}, {"port", f.Port},
		{"path", f.Path()}, {"typecode", tc}}
}

// URI builds the ftp URL. A Password needs a User (it may be empty).
func (f FTP) URI() (uri.URI, error) {
	const sch = "ftp"
	if f.Host == "" {
		return uri.URI{}, errField(sch, "host", "empty")
	}
	if f.Password.Set && !f.User.Set {
		return uri.URI{}, errField(sch, "password", "given without a user")
	}
	if err := checkPort(sch, f.Port); err != nil {
		return uri.URI{}, err
	}
	switch f.Typecode {
	case 0, 'a', 'i', 'd':
	default:
		return uri.URI{}, errField(sch, "typecode", "\""+string(f.Typecode)+"\" is not a, i or d")
	}
	var b strings.Builder
	b.WriteString("ftp:")
	buildAuthority(&b, f.User, f.Password, f.Host, f.Port, DefaultPort(sch))
	if len(f.Segments) > 0 || f.Typecode != 0 {
		b.WriteByte('/')
	}
	for i, s := range f.Segments {
		if i > 0 {
			b.WriteByte('/')
		}
		// ';' is escaped too, so no segment can fake a ";type=".
		b.WriteString(strings.ReplaceAll(uri.Escape(s, uri.ComponentPathSegment), ";", "%3B"))
	}
	if f.Typecode != 0 {
		b.WriteString(";type=")
		b.WriteByte(f.Typecode)
	}
	return parseBuilt(sch, b.String())
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
