package scheme

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/urikit/urikit/uri"
	"github.com/urikit/urikit/urn"
)

func mustURI(t *testing.T, s string) uri.URI {
	t.Helper()
	u, err := uri.Parse(s)
	if err != nil {
		t.Fatalf("uri.Parse(%q): %v", s, err)
	}
	return u
}

// fieldsJSON returns the fields of s as compact JSON with sorted keys.
func fieldsJSON(t *testing.T, s string) (string, error) {
	t.Helper()
	_, f, err := Parse(s)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(f.Map())
	if err != nil {
		t.Fatal(err)
	}
	return string(b), nil
}

// TestFields runs the RFCs' own examples through the generic interface.
func TestFields(t *testing.T) {
	tests := []struct{ in, want string }{
		// RFC 9110 / RFC 3986 §1.1.2
		{"http://www.ietf.org/rfc/rfc2396.txt", `{"host":"www.ietf.org","path":"/rfc/rfc2396.txt","port":80,"query":null}`},
		{"https://[2001:db8::7]:8443?q=a+b%20c", `{"host":"2001:db8::7","path":"","port":8443,"query":"q=a+b c"}`},
		{"WSS://Example.COM/chat", `{"host":"Example.COM","path":"/chat","port":443,"query":null}`},
		// RFC 1738 §3.2
		{"ftp://info.cern.ch/pub/www/doc;type=d", `{"host":"info.cern.ch","password":null,"path":"pub/www/doc","port":21,"typecode":"d","user":null}`},
		{"ftp://myname@host.dom/%2Fetc/motd", `{"host":"host.dom","password":null,"path":"/etc/motd","port":21,"typecode":null,"user":"myname"}`},
		{"ftp://a:b%40c@h:2121/x;type=I", `{"host":"h","password":"b@c","path":"x","port":2121,"typecode":"i","user":"a"}`},
		// RFC 4266
		{"gopher://h", `{"gopherplus":null,"gtype":"1","host":"h","port":70,"search":null,"selector":""}`},
		{"gopher://h:71/00about", `{"gopherplus":null,"gtype":"0","host":"h","port":71,"search":null,"selector":"0about"}`},
		{"gopher://h/7find%09a%20b", `{"gopherplus":null,"gtype":"7","host":"h","port":70,"search":"a b","selector":"find"}`},
		{"gopher://h/1x%09%09$", `{"gopherplus":"$","gtype":"1","host":"h","port":70,"search":"","selector":"x"}`},
		{"gopher://h/1cgi?arg", `{"gopherplus":null,"gtype":"1","host":"h","port":70,"search":null,"selector":"cgi?arg"}`},
		// RFC 5538
		{"news:comp.lang.go", `{"article":null,"group":"comp.lang.go","host":null,"port":null}`},
		{"news://h:120/", `{"article":null,"group":"*","host":"h","port":120}`},
		{"news:abc@def.example", `{"article":"abc@def.example","group":null,"host":null,"port":null}`},
		{"nntp://h/g.x/77", `{"article":"77","group":"g.x","host":"h","port":119}`},
		// RFC 4248, RFC 1738 §3.8
		{"telnet://u:p@h", `{"host":"h","password":"p","port":23,"user":"u"}`},
		{"rlogin://h/", `{"host":"h","password":null,"port":513,"user":null}`},
		{"tn3270://h:2323", `{"host":"h","password":null,"port":2323,"user":null}`},
		// RFC 4156 and the 1993 draft's database/wtype/length/path
		{"wais://h/db/TEXT/1234/a/b", `{"database":"db","host":"h","port":210,"search":null,"wpath":"1234/a/b","wtype":"TEXT"}`},
		// RFC 4157 and the 1993 draft's %00 form
		{"prospero://h/name%00v2%00attr;F=1", `{"host":"h","hsoname":"name","params":{"F":"1"},"port":1525}`},
		// RFC 6068
		{"mailto:a@x,%22b,c%22@y?To=d@z&subject=hi&body=%E2%82%AC", `{"body":"€","headers":{"subject":"hi"},"to":["a@x","\"b,c\"@y","d@z"]}`},
		// RFC 8089
		{"file://localhost/etc/fstab", `{"host":"localhost","path":"/etc/fstab"}`},
		{"file:/p", `{"host":null,"path":"/p"}`},
		{"file:C:/x", `{"host":null,"path":"C:/x"}`},
		// 1993 draft afs, RFC 8141 urn
		{"afs://cell.example/u/l", `{"cell":"cell.example","path":"u/l"}`},
		{"urn:example:a%2Fb", `{"nid":"example","nss":"a/b"}`},
	}
	for _, tt := range tests {
		got, err := fieldsJSON(t, tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s:\n got  %s\n want %s", tt.in, got, tt.want)
		}
	}
}

// TestFieldsErrors checks that each scheme's own syntax is enforced and
// that the error names the field at fault.
func TestFieldsErrors(t *testing.T) {
	tests := []struct{ in, field string }{
		{"http:", "host"},
		{"https://:443/", "host"},
		{"http://a:70000/", "port"},
		{"ftp://h/x?y", "query"},
		{"ftp://h/x;type=q", "typecode"},
		{"gopher://h/%09x", "type"},
		{"gopher://h/1a%0D%0Ab", "selector"},
		{"gopher://h?x", "selector"},
		{"news:/x", "group"},
		{"news:a/b", "group"},
		{"news:@x", "article"},
		{"nntp://h/", "group"},
		{"nntp://h/g/1a", "article"},
		{"nntp://h/g/12345678901234567", "article"},
		{"telnet://h/x", "path"},
		{"telnet://h/?x", "query"},
		{"wais://h", "database"},
		{"wais://h/db/t", "wpath"},
		{"wais://h/db/t/p?s", "search"},
		{"prospero://h", "hsoname"},
		{"prospero://h/x;y", "params"},
		{"mailto:x", "to"},
		{"mailto:a@b?subject", "hfields"},
		{"mailto:a@b?x=1?y=2", "hfields"},
		{"mailto:a@b?subject=%FF", "subject"},
		{"mailto://a@b", "to"},
		{"file:foo", "path"},
		{"file://h", "path"},
		{"file:///x?y", "query"},
		{"file://h:80/x", "host"},
		{"afs://c:1/x", "cell"},
		{"afs://c", "path"},
	}
	for _, tt := range tests {
		_, _, err := Parse(tt.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want a *scheme.Error", tt.in, err)
			continue
		}
		if e.Field != tt.field {
			t.Errorf("%s: error %q names field %q, want %q", tt.in, err, e.Field, tt.field)
		}
	}
	if _, _, err := Parse("example:x"); !errors.Is(err, ErrUnknownScheme) {
		t.Errorf("unknown scheme: got %v", err)
	}
	if _, err := ParseFTP(mustURI(t, "http://h/")); !errors.Is(err, ErrWrongScheme) {
		t.Errorf("ParseFTP(http): got %v", err)
	}
	var ue *uri.Error
	if _, _, err := Parse("http://a b/"); !errors.As(err, &ue) {
		t.Errorf("invalid URI: got %v, want *uri.Error", err)
	}
	if _, _, err := Parse("urn:x:y"); err == nil {
		t.Error("urn:x:y (one-letter NID) accepted")
	}
}

func TestTyped(t *testing.T) {
	f, err := ParseFTP(mustURI(t, "ftp://h/a%2Fb/c;type=a"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a/b", "c"}; !reflect.DeepEqual(f.Segments, want) || f.Path() != "a/b/c" || f.Typecode != 'a' {
		t.Errorf("ParseFTP: %+v", f)
	}
	p, err := ParseProspero(mustURI(t, "prospero://h/n%00%00a%00b;x=1;x=2"))
	if err != nil {
		t.Fatal(err)
	}
	if p.HSOName != "n" || p.Version != Some("") || !reflect.DeepEqual(p.Attributes, []string{"a", "b"}) ||
		len(p.Params) != 2 {
		t.Errorf("ParseProspero: %+v", p)
	}
	if v, _ := p.Param("x"); v != "1" {
		t.Errorf("Param(x) = %q, want the first value", v)
	}
	m, err := ParseMailto(mustURI(t, "mailto:?Cc=a@b&cc=c@d&&"))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := m.Header("CC"); !ok || v != "a@b" || len(m.Headers) != 1 || len(m.To) != 0 {
		t.Errorf("ParseMailto: %+v", m)
	}
	n, err := ParseURN(mustURI(t, "URN:ISBN:0451450523"))
	if err != nil || n.NID != "ISBN" || n.NSS != "0451450523" || !n.Name.IsValid() {
		t.Errorf("ParseURN: %+v, %v", n, err)
	}
}

func TestRegistry(t *testing.T) {
	want := map[string]int{"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "gopher": 70,
		"telnet": 23, "tn3270": 23, "rlogin": 513, "nntp": 119, "news": 119, "wais": 210, "prospero": 1525,
		"mailto": 0, "file": 0, "afs": 0, "urn": 0}
	for name, port := range want {
		s, ok := Lookup(name)
		if !ok {
			t.Errorf("%s not registered", name)
			continue
		}
		if s.Info().DefaultPort != port || s.Name() != name || s.Info().RFC == "" {
			t.Errorf("%s: %+v", name, s.Info())
		}
		if info, ok := uri.LookupScheme(name); port != 0 && (!ok || info.DefaultPort != port) {
			t.Errorf("uri.LookupScheme(%s) = %+v", name, info)
		}
	}
	if len(All()) != len(want) {
		t.Errorf("All() has %d schemes, want %d", len(All()), len(want))
	}
	if _, ok := Lookup("HTTP"); !ok {
		t.Error("Lookup is not case-insensitive")
	}
	if s, _ := Lookup("file"); !s.Info().Hierarchical {
		t.Error("file is hierarchical")
	}
	if s, _ := Lookup("mailto"); s.Info().Hierarchical {
		t.Error("mailto is not hierarchical")
	}
}

// TestOneSourceOfFacts: the normalization facts of every scheme here are
// package uri's, so a scheme's fields and uri.Equal at uri.SchemeBased
// never disagree; and file's rule (localhost is the empty host, RFC 8089
// §2) is one of them.
func TestOneSourceOfFacts(t *testing.T) {
	for _, s := range All() {
		info, _ := uri.LookupScheme(s.Name())
		if s.Info().SchemeInfo != info {
			t.Errorf("%s: Info %+v, uri.LookupScheme %+v", s.Name(), s.Info().SchemeInfo, info)
		}
	}
	tests := []struct{ in, want string }{
		{"HTTP://Example.COM:80", "http://example.com/"},
		{"file://LOCALHOST/etc/%7Efoo", "file:///etc/~foo"},
		{"file://host/x", "file://host/x"},
		{"gopher://h:070/1", "gopher://h/1"},
	}
	for _, tt := range tests {
		got := mustURI(t, tt.in).Normalize(uri.SchemeBased)
		if got.String() != tt.want {
			t.Errorf("Normalize(%s) = %s, want %s", tt.in, got, tt.want)
		}
		if again := got.Normalize(uri.SchemeBased); again != got {
			t.Errorf("Normalize not idempotent: %s -> %s", got, again)
		}
	}
	a, b := mustURI(t, "file://localhost/x"), mustURI(t, "file:///x")
	if !uri.Equal(a, b, uri.SchemeBased) {
		t.Error("uri.Equal(file://localhost/x, file:///x, SchemeBased) is false")
	}
	fa, _ := ParseFile(a.Normalize(uri.SchemeBased))
	fb, _ := ParseFile(b)
	if !fa.IsLocal() || fa != fb {
		t.Errorf("file fields after normalization: %+v vs %+v", fa, fb)
	}
}

func TestFieldsJSONOrder(t *testing.T) {
	_, f, err := Parse("telnet://u@h")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"user":"u","password":null,"host":"h","port":23}`; string(b) != want {
		t.Errorf("MarshalJSON = %s, want %s", b, want)
	}
}

// TestAuditFixes pins the answers that once disagreed with the RFCs behind
// PROTOCOL.md's scheme section.
func TestAuditFixes(t *testing.T) {
	ok := []struct{ in, want string }{
		// RFC 6068 §2: to = addr-spec *("," addr-spec ); an encoded comma
		// inside a quoted local part is data.
		{"mailto:%22a%2Cb%22@c", `{"body":null,"headers":{},"to":["\"a,b\"@c"]}`},
		{"mailto:a@b,c@d?to=e@f", `{"body":null,"headers":{},"to":["a@b","c@d","e@f"]}`},
		{"mailto:a@%5B192.0.2.1%5D", `{"body":null,"headers":{},"to":["a@[192.0.2.1]"]}`},
		{"mailto:a%2Fb@c", `{"body":null,"headers":{},"to":["a/b@c"]}`},
		// RFC 5538 §3: group-char and pct-encoded.
		{"nntp://h/comp.lang.c++/1", `{"article":"1","group":"comp.lang.c++","host":"h","port":119}`},
		{"nntp://h/g%2A", `{"article":null,"group":"g*","host":"h","port":119}`},
		// RFC 5538 §4: an encoded "/" in a Message-ID.
		{"news:a%2Fb@c", `{"article":"a/b@c","group":null,"host":null,"port":null}`},
		// RFC 8089 Appendix E.2: drive letter then path-absolute.
		{"file:c:/", `{"host":null,"path":"c:/"}`},
		// RFC 1738 §3.2.2: an encoded ";" is data.
		{"ftp://h/a%3Btype=i/b;type=a", `{"host":"h","password":null,"path":"a;type=i/b","port":21,"typecode":"a","user":null}`},
	}
	for _, tt := range ok {
		got, err := fieldsJSON(t, tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s:\n got  %s\n want %s", tt.in, got, tt.want)
		}
	}
	bad := []struct{ in, field string }{
		// RFC 1738 §3.2.2, §5: ";type=" only closes the path.
		{"ftp://h/a;type=i/b;type=a", "typecode"},
		{"ftp://h/a;type=d/b", "typecode"},
		// RFC 5538 §3: no "*", "@", ":" unencoded in an nntp group.
		{"nntp://h/*", "group"},
		{"nntp://h/a@b", "group"},
		{"nntp://h/g:x/1", "group"},
		// RFC 5538 §4: "/" in a Message-ID must be encoded.
		{"news:a/b@c", "article"},
		{"news://h/x/y@z", "article"},
		// RFC 3977 §4.1: controls are no wildmat-exact.
		{"news:a%01b", "group"},
		{"news:a%7Fb", "group"},
		// RFC 8089 Appendix E.2: file:c: has no path-absolute.
		{"file:c:", "path"},
		// RFC 6068 §2 and RFC 3986 §2.2: %2C is no delimiter, and
		// "a@b,c@d" is no addr-spec.
		{"mailto:a@b%2Cc@d", "to"},
		{"mailto:?to=a@b%2Cc@d", "to"},
		// RFC 6068 §2 item 1: "/", "&", ";", "=" of an address are encoded.
		{"mailto:a/b@c", "to"},
		{"mailto:a;b@c", "to"},
		{"mailto:a&b@c", "to"},
		{"mailto:a=b@c", "to"},
		// RFC 6068 §2: addr-spec = local-part "@" domain (RFC 5322).
		{"mailto:a@b@c", "to"},
		{"mailto:a..b@c", "to"},
		{"mailto:.a@b", "to"},
		{"mailto:a@b.", "to"},
		{"mailto:a(b)@c", "to"},
		{"mailto:a@", "to"},
		{"mailto:a@%5B1.2.3.4", "to"},
		{"mailto:%22a%22b@c", "to"},
	}
	for _, tt := range bad {
		_, _, err := Parse(tt.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want a *scheme.Error", tt.in, err)
			continue
		}
		if e.Field != tt.field {
			t.Errorf("%s: error %q names field %q, want %q", tt.in, err, e.Field, tt.field)
		}
	}
}

// TestSchemeSyntaxByTheRFCs pins what RFC 6068, RFC 5536/5538 and RFC 4157
// say of the mailto hfields, news message-ids and prospero fields.
func TestSchemeSyntaxByTheRFCs(t *testing.T) {
	ok := []struct{ in, want string }{
		// RFC 6068 §2: hfvalue = *qchar; encoded, "=" and "/" are data.
		{"mailto:a@b?subject=1%3D2%2F3", `{"body":null,"headers":{"subject":"1=2/3"},"to":["a@b"]}`},
		{"mailto:a@b?subject=a:b@c,d;e!$'()*+", `{"body":null,"headers":{"subject":"a:b@c,d;e!$'()*+"},"to":["a@b"]}`},
		// RFC 5536 §3.1.3: id-right may be a no-fold-literal, written
		// with encoded brackets (RFC 5538 Appendix B).
		{"news:p0624081dc30b8699bf9b@%5B10.20.30.108%5D", `{"article":"p0624081dc30b8699bf9b@[10.20.30.108]","group":null,"host":null,"port":null}`},
		{"news:%22a(b%22@example.com", `{"article":"\"a(b\"@example.com","group":null,"host":null,"port":null}`},
		// RFC 4157 §2: "=" and ";" of a field are escaped.
		{"prospero://h/x;a%3Db=c%3Dd%3B", `{"host":"h","hsoname":"x","params":{"a=b":"c=d;"},"port":1525}`},
		{"prospero://h/a=b;f=v", `{"host":"h","hsoname":"a=b","params":{"f":"v"},"port":1525}`},
		{"news:a%3Ab.*", `{"article":null,"group":"a:b.*","host":null,"port":null}`},
	}
	for _, tt := range ok {
		got, err := fieldsJSON(t, tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s:\n got  %s\n want %s", tt.in, got, tt.want)
		}
	}
	bad := []struct{ in, field string }{
		// RFC 6068 §2: hfname and hfvalue are *qchar: no raw "=" or "/".
		{"mailto:a@b?subject=1=2", "hfields"},
		{"mailto:a@b?subject=a/b", "hfields"},
		{"mailto:a@b?body=x=y", "hfields"},
		{"mailto:a@b?sub/ject=x", "hfields"},
		{"mailto:?to=a@b=c", "to"},
		// RFC 5536 §3.1.3: no empty label in the domain part, nor in a
		// dot-atom id-left.
		{"news:abc@def..example", "article"},
		{"news:abc@.example", "article"},
		{"news:abc@example.", "article"},
		{"news:a..b@example", "article"},
		{"news:a@b@c", "article"},
		{"news:a%20b@c", "article"},
		{"news:a@%5Bx%5D%5D", "article"},
		{"news:%22a%20b%22@c", "article"},
		// RFC 5538 §2, §4: "<" and ">" are not part of the URI, encoded
		// or not ("%3E" is not allowed).
		{"news:%3Cabc@def.example%3E", "article"},
		{"news:abc@def.example%3E", "article"},
		{"news:%3Cabc@def.example", "article"},
		// RFC 5538 §4: newsgroups = *( group-char / pct-encoded / "*" ).
		{"news:a:b", "group"},
		{"news:a$b", "group"},
		// RFC 4157 §2: a raw "=" in a field name or value.
		{"prospero://h/x;a=b=c", "params"},
	}
	for _, tt := range bad {
		_, _, err := Parse(tt.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want a *scheme.Error", tt.in, err)
			continue
		}
		if e.Field != tt.field {
			t.Errorf("%s: error %q names field %q, want %q", tt.in, err, e.Field, tt.field)
		}
	}
	// ParseURN reports a urn error without nesting its text: the reason
	// is urn's reason, the *urn.Error is wrapped.
	_, err := ParseURN(mustURI(t, "urn:ab-:x"))
	var ue *urn.Error
	if err == nil || strings.Count(err.Error(), "urn:") > 2 || strings.Contains(err.Error(), "at byte 7 of") ||
		!errors.As(err, &ue) || !errors.Is(err, urn.ErrInvalidNID) {
		t.Errorf("ParseURN: %v", err)
	}
}
