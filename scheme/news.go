package scheme

import (
	"strconv"
	"strings"

	"github.com/urikit/urikit/internal/ascii"
	"github.com/urikit/urikit/uri"
)

func init() {
	register(Info{Name: "news", RFC: "RFC 5538 §4", Title: "Netnews articles and newsgroups"},
		func(u uri.URI) (Fields, error) {
			n, err := ParseNews(u)
			if err != nil {
				return nil, err
			}
			return n.Fields(), nil
		})
	register(Info{Name: "nntp", RFC: "RFC 5538 §3", Title: "Netnews article on a given server"},
		func(u uri.URI) (Fields, error) {
			n, err := ParseNNTP(u)
			if err != nil {
				return nil, err
			}
			return n.Fields(), nil
		})
}

// News is a news URI (RFC 5538 §4):
//
//	newsURL = "news:" [ "//" authority "/" ] ( article / newsgroups )
//
// Exactly one of Group and Article is set.
type News struct {
	// Host is set when the URI names a server (news://host/...).
	Host Opt
	// Port is the server's port, 119 when not given; 0 without a Host.
	Port int
	// Group is a newsgroup name or a wildmat pattern with "*" and "?"
	// wildcards; "*" is all groups, and so is an empty group with a server
	// (RFC 5538 §4: news://server/ is news://server/*).
	Group string
	// Article is the Message-ID without angle brackets (RFC 5536 §3.1.3
	// id-left "@" id-right); the "@" in it is what tells an article from a
	// group (RFC 5538 §2.2).
	Article string
}

// ParseNews reads a news URI. A query is ignored (RFC 5538 §2.3 leaves it
// unspecified).
func ParseNews(u uri.URI) (News, error) {
	const sch = "news"
	if _, err := checkScheme(u, sch); err != nil {
		return News{}, err
	}
	var n News
	p := u.Path()
	if u.HasAuthority() {
		host, port, err := hostPort(u, sch, DefaultPort(sch), false)
		if err != nil {
			return News{}, err
		}
		n.Host, n.Port = Some(host), port
		p = strings.TrimPrefix(p, "/")
	} else if strings.HasPrefix(p, "/") {
		return News{}, errField(sch, "group", "a path starting with \"/\" needs a server (news://host/...)")
	}
	d := decode(p)
	switch {
	case strings.Contains(d, "@"):
		// RFC 5538 §4: a "/" of a msg-id-core MUST be percent-encoded, so
		// an unencoded one (news:a/b@c, news://h/g/x@y) is a path
		// separator that no news URI has.
		if strings.Contains(p, "/") {
			return News{}, errField(sch, "article", "\""+p+"\" holds a \"/\", which a Message-ID must encode as %2F (RFC 5538 §4)")
		}
		if err := checkMsgID(d); err != nil {
			return News{}, errField(sch, "article", err.Error())
		}
		n.Article = d
	case strings.Contains(p, "/"):
		return News{}, errField(sch, "group", "\""+d+"\" holds a \"/\"")
	case d == "":
		n.Group = "*"
	default:
		// RFC 5538 §4: newsgroups = *( group-char / pct-encoded / "*" );
		// the other characters of a wildmat ("?", ":", "!" ...) are
		// written percent-encoded.
		for i := 0; i < len(p); i++ {
			if c := p[i]; !isGroupChar(c) && c != '*' && c != '%' {
				return News{}, errField(sch, "group", "\""+p+"\" holds "+strconv.QuoteRune(rune(c))+", which must be percent-encoded (RFC 5538 §4)")
			}
		}
		if !isWildmat(d) {
			return News{}, errField(sch, "group", "\""+d+"\" is not a newsgroup name or wildmat (RFC 3977 §4)")
		}
		n.Group = d
	}
	return n, nil
}

// Fields returns group, article, host and port.
func (n News) Fields() Fields {
	var group, article, port any
	if n.Article != "" {
		article = n.Article
	} else {
		group = n.Group
	}
	if n.Host.Set {
		port = n.Port
	}
	return Fields{{"group", group}, {"article", article}, {"host", n.Host.value()}, {"port", port}}
}

// URI builds the news URI.
func (n News) URI() (uri.URI, error) {
	const sch = "news"
	if (n.Group == "") == (n.Article == "") {
		return uri.URI{}, errField(sch, "group", "exactly one of group and article must be given")
	}
	var b strings.Builder
	b.WriteString("news:")
	if n.Host.Set {
		if n.Host.Value == "" {
			return uri.URI{}, errField(sch, "host", "empty")
		}
		if err := checkPort(sch, n.Port); err != nil {
			return uri.URI{}, err
		}
		buildAuthority(&b, Opt{}, Opt{}, n.Host.Value, n.Port, DefaultPort(sch))
		b.WriteByte('/')
	}
	if n.Article != "" {
		a := n.Article // without angle brackets (RFC 5538 §4: msg-id-core)
		if err := checkMsgID(a); err != nil {
			return uri.URI{}, errField(sch, "article", err.Error())
		}
		// RFC 5538 §4: "/", "?", "#", "[", "]" and "%" must be encoded.
		b.WriteString(uri.Escape(a, uri.ComponentPathSegment))
	} else {
		if strings.Contains(n.Group, "@") || !isWildmat(n.Group) {
			return uri.URI{}, errField(sch, "group", "\""+n.Group+"\" is not a newsgroup name or wildmat")
		}
		b.WriteString(escapeNewsgroups(n.Group))
	}
	return parseBuilt(sch, b.String())
}

// NNTP is an nntp URI (RFC 5538 §3):
//
//	nntpURL = "nntp:" "//" authority "/" group [ "/" article-number ]
type NNTP struct {
	Host  string
	Port  int
	Group string // decoded newsgroup name
	// Article is the article number (1 to 16 digits), "" for the group.
	Article string
}

// ParseNNTP reads an nntp URI.
func ParseNNTP(u uri.URI) (NNTP, error) {
	const sch = "nntp"
	if _, err := checkScheme(u, sch); err != nil {
		return NNTP{}, err
	}
	host, port, err := hostPort(u, sch, DefaultPort(sch), false)
	if err != nil {
		return NNTP{}, err
	}
	p := strings.TrimPrefix(u.Path(), "/")
	group, art, hasArt := strings.Cut(p, "/")
	if group == "" {
		return NNTP{}, errField(sch, "group", "missing (RFC 5538 §3 requires one)")
	}
	// RFC 5538 §3: group = 1*( group-char / pct-encoded ). Every other
	// character (a "*" or "?" wildcard, "@", ":", "!", ...) must be
	// percent-encoded: nntp://h/* names no group (wildcards are the news
	// scheme's, §4), and nntp://h/a@b is not an nntp URI.
	for i := 0; i < len(group); i++ {
		if c := group[i]; !isGroupChar(c) && c != '%' {
			return NNTP{}, errField(sch, "group", "\""+group+"\" holds "+strconv.QuoteRune(rune(c))+", which must be percent-encoded (RFC 5538 §3)")
		}
	}
	n := NNTP{Host: host, Port: port, Group: decode(group)}
	if hasArt {
		if !isDigits(art) || len(art) > 16 {
			return NNTP{}, errField(sch, "article", "\""+decode(art)+"\" is not an article number (1*16DIGIT)")
		}
		n.Article = art
	}
	return n, nil
}

// Fields returns host, port, group and article.
func (n NNTP) Fields() Fields {
	var art any
	if n.Article != "" {
		art = n.Article
	}
	return Fields{{"host", n.Host}, {"port", n.Port}, {"group", n.Group}, {"article", art}}
}

// URI builds the nntp URI.
func (n NNTP) URI() (uri.URI, error) {
	const sch = "nntp"
	if n.Host == "" {
		return uri.URI{}, errField(sch, "host", "empty")
	}
	if n.Group == "" {
		return uri.URI{}, errField(sch, "group", "empty")
	}
	if n.Article != "" && (!isDigits(n.Article) || len(n.Article) > 16) {
		return uri.URI{}, errField(sch, "article", "\""+n.Article+"\" is not an article number")
	}
	if err := checkPort(sch, n.Port); err != nil {
		return uri.URI{}, err
	}
	var b strings.Builder
	b.WriteString("nntp:")
	buildAuthority(&b, Opt{}, Opt{}, n.Host, n.Port, DefaultPort(sch))
	b.WriteByte('/')
	b.WriteString(escapeGroup(n.Group))
	if n.Article != "" {
		b.WriteByte('/')
		b.WriteString(n.Article)
	}
	return parseBuilt(sch, b.String())
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isGroupChar reports whether c is a group-char of RFC 5538 §3:
// ALPHA / DIGIT / "-" / "+" / "_" / ".".
func isGroupChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '+' || c == '_' || c == '.'
}

// escapeGroup percent-encodes every byte of an nntp group name that is not
// a group-char (RFC 5538 §3).
func escapeGroup(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if c := s[i]; isGroupChar(c) {
			b = append(b, c)
		} else {
			b = ascii.AppendPct(b, c)
		}
	}
	return string(b)
}

// escapeNewsgroups percent-encodes every byte of a news wildmat that is
// neither a group-char nor the "*" wildcard (RFC 5538 §4).
func escapeNewsgroups(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if c := s[i]; isGroupChar(c) || c == '*' {
			b = append(b, c)
		} else {
			b = ascii.AppendPct(b, c)
		}
	}
	return string(b)
}

// isWildmat reports whether s holds only characters of an RFC 3977 §4.1
// wildmat-pattern without its "!" negation: wildmat-exact (%x22-29 / %x2B
// / %x2D-3E / %x40-5A / %x5E-7E / UTF8-non-ascii) and the wildcards "*"
// and "?". Spaces, controls, DEL, "!", ",", "[", "\" and "]" are out.
func isWildmat(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == 0x7f || c == '!' || c == ',' || c == '[' || c == '\\' || c == ']' {
			return false
		}
	}
	return true
}

// checkMsgID checks a decoded article against RFC 5536 §3.1.3's Message-ID
// without its angle brackets, which RFC 5538 §4 makes the article of a news
// URI ("%3E" is not allowed, and the brackets are not part of the URI,
// encoded or not):
//
//	msg-id-core     = "<" id-left "@" id-right ">"   ; at most 250 octets
//	id-left         = dot-atom-text / no-fold-quote
//	id-right        = dot-atom-text / no-fold-literal
//	no-fold-quote   = DQUOTE *( qtext / quoted-pair ) DQUOTE   ; RFC 5322 §3.6.4
//	no-fold-literal = "[" *mdtext "]"
//	mdtext          = %d33-61 / %d63-90 / %d94-126   ; no ">", "[", "]", "\"
//
// so a domain part has no empty label and no whitespace anywhere.
func checkMsgID(a string) error {
	bad := func(why string) error {
		return addrError("\"" + a + "\" is not a Message-ID (RFC 5536 §3.1.3): " + why)
	}
	if strings.ContainsAny(a, "<>") {
		return bad("the angle brackets are not part of a news URI, encoded or not (RFC 5538 §4)")
	}
	if len(a)+2 > 250 {
		return bad("longer than 250 octets with its brackets")
	}
	var i int
	if strings.HasPrefix(a, `"`) {
		// no-fold-quote: qtext is %d33 / %d35-91 / %d93-126.
		for i = 1; ; i++ {
			if i >= len(a) {
				return bad("unterminated quoted id-left")
			}
			c := a[i]
			if c == '"' {
				i++
				break
			}
			if c == '\\' {
				i++
				if i >= len(a) || a[i] < 33 || a[i] > 126 {
					return bad(`a "\" must quote a visible character`)
				}
				continue
			}
			if c < 33 || c > 126 {
				return bad("a space, control or non-ASCII character in the id-left")
			}
		}
	} else {
		n, why := dotAtomASCII(a)
		if why != "" {
			return bad("id-left: " + why)
		}
		i = n
	}
	if i >= len(a) || a[i] != '@' {
		return bad(`the id-left must be followed by "@" and an id-right`)
	}
	r := a[i+1:]
	if strings.HasPrefix(r, "[") {
		if len(r) < 2 || r[len(r)-1] != ']' {
			return bad("unterminated no-fold-literal")
		}
		for j := 1; j < len(r)-1; j++ {
			if c := r[j]; c < 33 || c > 126 || c == '[' || c == ']' || c == '\\' {
				return bad("the id-right literal holds a character other than mdtext")
			}
		}
		return nil
	}
	n, why := dotAtomASCII(r)
	switch {
	case why != "":
		return bad("id-right: " + why)
	case n != len(r):
		return bad("id-right: " + strconv.Quote(r[n:n+1]) + " is not allowed there")
	}
	return nil
}

// dotAtomASCII is dotAtom restricted to ASCII atext: Message-IDs are ASCII
// (RFC 5536 §3.1.3 uses RFC 5322's atext).
func dotAtomASCII(s string) (int, string) {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			if i == 0 || s[i-1] == '.' {
				return 0, "a non-ASCII character"
			}
			s = s[:i]
			break
		}
	}
	return dotAtom(s)
}
