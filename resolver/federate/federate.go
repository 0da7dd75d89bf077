package federate

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

// Options configure a Delegator. The zero value has no DDDS discovery.
type Options struct {
	// DNS is the HOST:PORT of the DNS server asked for NAPTR and SRV
	// records (urikit serve --dns, URIKIT_DNS); a bare host or address
	// means port 53. Empty turns DDDS discovery off.
	DNS string
	// Timeout bounds one discovery, every look-up in it together, and
	// each look-up on its own. 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxLookups bounds the DNS look-ups in flight at once; a discovery
	// that finds every slot taken waits for one within its Timeout. 0
	// means DefaultMaxLookups.
	MaxLookups int
	// CacheEntries and CacheBytes bound the answers kept (each for its
	// TTL, at most a day), in number and in bytes. 0 means the default;
	// a negative CacheEntries keeps none.
	CacheEntries int
	CacheBytes   int
	// MaxRewrites bounds the NAPTR keys one discovery looks up. 0 means
	// DefaultMaxRewrites.
	MaxRewrites int
	// FailureTTL is how long a failed look-up (a server failure, no
	// answer in time) is remembered before the server is asked again; at
	// most five minutes (RFC 2308 §7). 0 means DefaultFailureTTL;
	// negative remembers nothing.
	FailureTTL time.Duration
	// Clock returns the time, for the cache; time.Now when nil.
	Clock func() time.Time
}

// Defaults for Options.
const (
	DefaultTimeout      = 3 * time.Second
	DefaultMaxLookups   = 16
	DefaultCacheEntries = 4096
	DefaultCacheBytes   = 8 << 20
	DefaultMaxRewrites  = 10
	DefaultFailureTTL   = 5 * time.Second
)

// RuleSource gives the delegation rules; *resolver.Service is one.
type RuleSource interface {
	Rules(ctx context.Context) ([]resolver.Rule, error)
}

// Delegator implements resolver.Delegator: delegation rules first, then
// DDDS discovery when a DNS server is configured. It is safe for
// concurrent use.
type Delegator struct {
	rules RuleSource
	ddds  *Discoverer
}

var _ resolver.Delegator = (*Delegator)(nil)

// New returns a Delegator over the rules of src (nil for none) with the
// given options.
func New(src RuleSource, opts Options) (*Delegator, error) {
	d := &Delegator{rules: src}
	if opts.DNS == "" {
		return d, nil
	}
	disc, err := NewDiscoverer(opts)
	if err != nil {
		return nil, err
	}
	d.ddds = disc
	return d, nil
}

// NewDiscoverer returns a DDDS Discoverer asking the DNS server opts.DNS.
func NewDiscoverer(opts Options) (*Discoverer, error) {
	addr, err := DNSAddr(opts.DNS)
	if err != nil {
		return nil, err
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxLookups <= 0 {
		opts.MaxLookups = DefaultMaxLookups
	}
	switch {
	case opts.CacheEntries == 0:
		opts.CacheEntries = DefaultCacheEntries
	case opts.CacheEntries < 0:
		opts.CacheEntries = 0
	}
	if opts.CacheBytes <= 0 {
		opts.CacheBytes = DefaultCacheBytes
	}
	if opts.MaxRewrites <= 0 {
		opts.MaxRewrites = DefaultMaxRewrites
	}
	switch {
	case opts.FailureTTL == 0:
		opts.FailureTTL = DefaultFailureTTL
	case opts.FailureTTL < 0:
		opts.FailureTTL = 0
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &Discoverer{
		dns:      newDNSClient(addr, opts.Timeout, opts.MaxLookups, opts.CacheEntries, opts.CacheBytes, opts.FailureTTL, opts.Clock),
		timeout:  opts.Timeout,
		maxSteps: opts.MaxRewrites,
	}, nil
}

// DNSAddr checks the address of a DNS server, HOST:PORT or a bare host
// or IP address (port 53), and returns it as HOST:PORT.
func DNSAddr(s string) (string, error) {
	bad := func(why string) error {
		return &resolver.Error{Kind: resolver.KindInvalid, Field: "dns", Offset: -1, Message: fmt.Sprintf("%q: %s", s, why)}
	}
	if s == "" {
		return "", bad("no DNS server address")
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return net.JoinHostPort(a.String(), "53"), nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		if ae, ok := err.(*net.AddrError); ok && ae.Err == "missing port in address" {
			host, port = s, "53"
			if inner, ok := strings.CutPrefix(s, "["); ok {
				// "[::1]": an IPv6 address in brackets, without a port.
				a, err := netip.ParseAddr(strings.TrimSuffix(inner, "]"))
				if !strings.HasSuffix(inner, "]") || err != nil {
					return "", bad("not an IPv6 address in brackets")
				}
				host = a.String()
			}
		} else {
			return "", bad("not HOST:PORT")
		}
	}
	if host == "" {
		return "", bad("no host")
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
		return "", bad("the port is 1 to 65535")
	}
	return net.JoinHostPort(host, port), nil
}

// Discoverer returns the DDDS discoverer, nil when discovery is off.
func (d *Delegator) Discoverer() *Discoverer { return d.ddds }

// Refer implements resolver.Delegator: the delegation rule with the
// longest prefix the name lies under (see ByRules), else DDDS discovery
// (see Discoverer.Discover) when it is configured. service is an RFC 2169
// or RFC 2483 name of a service that takes one name; hops is the count the
// next resolver must see. Errors are *resolver.Error: KindInvalid for a
// service that is not handed on, KindNotFound for a discovery path that
// breaks (the message says where), KindUnavailable when the store or the
// DNS server fails or is too slow.
func (d *Delegator) Refer(ctx context.Context, name urn.URN, service string, hops int) (resolver.Referral, bool, error) {
	s, err := lookupService(service)
	if err != nil {
		return resolver.Referral{}, false, err
	}
	if !name.IsValid() {
		return resolver.Referral{}, false, &resolver.Error{Kind: resolver.KindInvalid, Field: "urn", Offset: -1, Message: "not a URN"}
	}
	if hops < 0 || hops > MaxHops {
		return resolver.Referral{}, false, &resolver.Error{Kind: resolver.KindInvalid, Field: "hops", Offset: -1, Message: "a hop count is 0 to " + strconv.Itoa(MaxHops)}
	}
	if d.rules != nil {
		rules, err := d.rules.Rules(ctx)
		if err != nil {
			return resolver.Referral{}, false, err
		}
		if r, ok, err := byRules(rules, name, s, hops); ok || err != nil {
			return r, ok, err
		}
	}
	if d.ddds == nil {
		return resolver.Referral{}, false, nil
	}
	return d.ddds.discover(ctx, name, s, hops)
}
