package scheme

import (
	"sort"

	"github.com/urikit/urikit/internal/ascii"
	"github.com/urikit/urikit/uri"
)

// Info is what the registry knows of a scheme.
type Info struct {
	// Name is the scheme name in lower case.
	Name string
	// SchemeInfo holds the facts of scheme-based normalization (default
	// port, empty path, default host) as package uri knows them
	// (uri.LookupScheme): one source of them, so that a scheme's fields
	// here and uri.Equal at uri.SchemeBased never disagree.
	uri.SchemeInfo
	// Hierarchical: the path is a hierarchy of "/" segments, so relative
	// references and dot segments mean something (RFC 3986 §1.2.3).
	Hierarchical bool
	// RFC names the specification of the scheme ("RFC 4266").
	RFC string
	// Title describes the scheme in a few words.
	Title string
}

// registry holds the schemes of this package. The scheme files fill it
// from init; nothing writes it afterwards, so lookups need no lock and
// every call of a function of this package answers the same way for the
// life of the process. A program with schemes of its own implements the
// Scheme interface and calls its Fields directly.
var registry = map[string]Scheme{}

// Lookup returns the scheme of this package named name (case-insensitive).
func Lookup(name string) (Scheme, bool) {
	s, ok := registry[ascii.LowerString(name)]
	return s, ok
}

// All returns the schemes of this package sorted by name.
func All() []Scheme {
	list := make([]Scheme, 0, len(registry))
	for _, s := range registry {
		list = append(list, s)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name() < list[j].Name() })
	return list
}

// DefaultPort returns the default port of a scheme, 0 when it has none or
// is unknown (uri.LookupScheme's).
func DefaultPort(name string) int {
	info, _ := uri.LookupScheme(name)
	return info.DefaultPort
}

// scheme is the generic Scheme made of an Info and a fields function; the
// per-scheme files register one each.
type scheme struct {
	info   Info
	fields func(uri.URI) (Fields, error)
}

func (s *scheme) Name() string                     { return s.info.Name }
func (s *scheme) Info() Info                       { return s.info }
func (s *scheme) Fields(u uri.URI) (Fields, error) { return s.fields(u) }

// register adds a scheme from an init function, its normalization facts
// taken from package uri. It panics on a duplicate name, a programming
// error the first test run catches.
func register(info Info, fields func(uri.URI) (Fields, error)) {
	info.Name = ascii.LowerString(info.Name)
	if _, dup := registry[info.Name]; dup {
		panic("scheme: registered twice: " + info.Name)
	}
	info.SchemeInfo, _ = uri.LookupScheme(info.Name)
	registry[info.Name] = &scheme{info: info, fields: fields}
}
