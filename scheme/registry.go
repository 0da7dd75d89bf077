package scheme

import (
	"sort"
	"strings"
	"sync"

	"github.com/urikit/urikit/uri"
)

// Info is what the registry knows of a scheme.
type Info struct {
	// Name is the scheme name in lower case.
	Name string
	// DefaultPort is the port a URI of the scheme means when it names
	// none; 0 when the scheme has none.
	DefaultPort int
	// Hierarchical: the path is a hierarchy of "/" segments, so relative
	// references and dot segments mean something (RFC 3986 §1.2.3).
	Hierarchical bool
	// EmptyPathIsSlash: with an authority, an empty path is the same as "/"
	// (RFC 3986 §6.2.3).
	EmptyPathIsSlash bool
	// RFC names the specification of the scheme ("RFC 4266").
	RFC string
	// Title describes the scheme in a few words.
	Title string
}

var (
	regMu    sync.RWMutex
	registry = map[string]Scheme{}
)

// Register adds s to the registry, replacing a scheme of the same name, and
// tells package uri its default port and empty-path rule so that
// uri.Normalize(uri.SchemeBased) and uri.Equal follow it.
func Register(s Scheme) {
	name := strings.ToLower(s.Name())
	info := s.Info()
	regMu.Lock()
	registry[name] = s
	regMu.Unlock()
	uri.RegisterScheme(name, uri.SchemeInfo{DefaultPort: info.DefaultPort, EmptyPathIsSlash: info.EmptyPathIsSlash})
}

// Lookup returns the scheme registered under name (case-insensitive).
func Lookup(name string) (Scheme, bool) {
	regMu.RLock()
	s, ok := registry[strings.ToLower(name)]
	regMu.RUnlock()
	return s, ok
}

// All returns the registered schemes sorted by name.
func All() []Scheme {
	regMu.RLock()
	list := make([]Scheme, 0, len(registry))
	for _, s := range registry {
		list = append(list, s)
	}
	regMu.RUnlock()
	sort.Slice(list, func(i, j int) bool { return list[i].Name() < list[j].Name() })
	return list
}

// DefaultPort returns the registered default port of a scheme, 0 when it
// has none or is unknown.
func DefaultPort(name string) int {
	if s, ok := Lookup(name); ok {
		return s.Info().DefaultPort
	}
	return 0
}

// scheme is the generic Scheme made of an Info and a fields function; the
// per-scheme files register one each.
type scheme struct {
	info   Info
	fields func(uri.URI) (Fields, error)
	norm   func(uri.URI) uri.URI
}

func (s *scheme) Name() string                     { return s.info.Name }
func (s *scheme) Info() Info                       { return s.info }
func (s *scheme) Fields(u uri.URI) (Fields, error) { return s.fields(u) }

// normScheme is a scheme with its own normalization rules.
type normScheme struct{ *scheme }

func (s normScheme) NormalizeURI(u uri.URI) uri.URI { return s.norm(u) }

func register(info Info, fields func(uri.URI) (Fields, error)) {
	Register(&scheme{info: info, fields: fields})
}

func registerNorm(info Info, fields func(uri.URI) (Fields, error), norm func(uri.URI) uri.URI) {
	Register(normScheme{&scheme{info: info, fields: fields, norm: norm}})
}
