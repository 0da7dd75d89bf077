package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// zoneDNS is a DNS server on a loopback UDP port serving the records of a
// zone file's text (owner and type; NXDOMAIN for any other owner).
func zoneDNS(t *testing.T, zone string) (addr string, stop func()) {
	t.Helper()
	rrs := map[string][]dns.RR{}
	zp := dns.NewZoneParser(strings.NewReader(zone), ".", "test.zone")
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		name := strings.ToLower(rr.Header().Name)
		rrs[name] = append(rrs[name], rr)
	}
	if err := zp.Err(); err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(q)
		m.Authoritative = true
		if len(q.Question) == 1 {
			owner, has := rrs[strings.ToLower(q.Question[0].Name)]
			for _, rr := range owner {
				if rr.Header().Rrtype == q.Question[0].Qtype {
					m.Answer = append(m.Answer, rr)
				}
			}
			if !has {
				m.Rcode = dns.RcodeNameError
			}
		}
		w.WriteMsg(m)
	})
	started := make(chan struct{})
	ds := &dns.Server{PacketConn: pc, Handler: h, NotifyStartedFunc: func() { close(started) }}
	go ds.ActivateAndServe()
	<-started
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			ds.Shutdown()
		}
	}
	t.Cleanup(stop)
	return pc.LocalAddr().String(), stop
}

// TestRulesTestDDDS: for a name no rule applies to, rules test through a
// server says what the server's DDDS discovery finds, as the server
// answers it: the NAPTR and SRV records taken and the redirect (exit 0);
// no NAPTR records (404); a chain that breaks, and where; a DNS server
// that is down (503); discovery off. On a data directory it says that a
// server with --dns would try discovery. With no rules at all it says
// so, not "none of the 0 rules' prefixes".
func TestRulesTestDDDS(t *testing.T) {
	hermetic(t)
	// The zone of docs/federate.md.
	addr, stopDNS := zoneDNS(t, `
nbn.urn.arpa.  IN NAPTR 100 10 "" "" "!^urn:nbn:([a-z]+):.*$!\\1.nbn.example.!i" .
de.nbn.example. IN NAPTR 100 10 "S" "thttp+I2L+I2Ls+I2C" "" _thttp._tcp.de.nbn.example.
_thttp._tcp.de.nbn.example. IN SRV 0 0 8080 resolver.de.nbn.example.
`)
	data := filepath.Join(t.TempDir(), "data")
	srv := startServer(t, data, envDNS+"="+addr)
	t.Setenv(envServer, srv.URL)
	t.Setenv(envToken, srv.Token)

	// No rules at all.
	out, _ := cli(t, exitInvalid, "rules", "test", "urn:example:x")
	if want := "no rule applies to urn:example:x: there are no rules\n" +
		"  DDDS       example.urn.arpa. has no NAPTR records; a request is answered 404\n"; out != want {
		t.Errorf("no rules, no NAPTR records:\n%s\nwant\n%s", out, want)
	}

	cli(t, exitOK, "rules", "add", "urn:nbn:de:101-", "https://dnb.example/nbn/")
	// A rule applies: three lines, as before.
	out, _ = cli(t, exitOK, "rules", "test", "urn:nbn:de:101-2024")
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); len(lines) != 3 ||
		lines[0] != "urn:nbn:de:101-2024 takes rule 1: urn:nbn:de:101- → https://dnb.example/nbn/" ||
		lines[2] != "  I2L        https://dnb.example/nbn/uri-res/N2L?urn:nbn:de:101-2024?+hops=1" {
		t.Errorf("by the rule:\n%s", out)
	}

	// Delegated by DDDS: the records taken, and the server's own redirect.
	code, h, body := get(t, srv.URL+"/uri-res/I2L?urn:nbn:de:gbv:7-1")
	if code != 303 || h.Get("Urikit-Referral") != "ddds" {
		t.Fatalf("the server: %d %v %s", code, h, body)
	}
	out, _ = cli(t, exitOK, "rules", "test", "urn:nbn:de:gbv:7-1")
	want := "urn:nbn:de:gbv:7-1 takes no rule (its canonical form urn:nbn:de:gbv:7-1 does not lie under the one rule's prefix, urn:nbn:de:101-); the server's DDDS discovery finds it\n" +
		// The record as a zone file writes it (RFC 3403 §7's escaping).
		`  step 1     nbn.urn.arpa. NAPTR 100 10 "" "" "!^urn:nbn:([a-z]+):.*$!\\1.nbn.example.!i" . → de.nbn.example.` + "\n" +
		`  step 2     de.nbn.example. NAPTR 100 10 "S" "thttp+I2L+I2Ls+I2C" "" _thttp._tcp.de.nbn.example. → _thttp._tcp.de.nbn.example. → SRV resolver.de.nbn.example:8080` + "\n" +
		"  I2L        " + h.Get("Location") + "\n"
	if out != want {
		t.Errorf("by DDDS:\n%s\nwant\n%s", out, want)
	}
	if out, _ = cli(t, exitOK, "rules", "test", "urn:nbn:de:gbv:7-1", "--service", "I2C"); !strings.HasSuffix(out, "  I2C        http://resolver.de.nbn.example:8080/uri-res/N2C?urn:nbn:de:gbv:7-1?+hops=1\n") {
		t.Errorf("by DDDS, I2C:\n%s", out)
	}

	// A dry run shows the same: where discovery sends a name now, and
	// where the rule would send it.
	out, _ = cli(t, exitOK, "rules", "add", "urn:nbn:de:gbv:", "https://gbv.example/", "--dry-run", "--try", "urn:nbn:de:gbv:7-1", "--try", "urn:example:x")
	for _, want := range []string{
		"changes   urn:nbn:de:gbv:7-1: no rule; DDDS discovery → " + h.Get("Location") + "\n" +
			"          after: the new rule (urn:nbn:de:gbv:) → https://gbv.example/uri-res/N2L?urn:nbn:de:gbv:7-1?+hops=1\n",
		"same      urn:example:x: no rule: 404 (DDDS: example.urn.arpa. has no NAPTR records)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}

	// A chain that breaks: fr.nbn.example. has no records.
	out, _ = cli(t, exitInvalid, "rules", "test", "urn:nbn:fr:x-1")
	if !strings.HasPrefix(out, "no rule applies to urn:nbn:fr:x-1: its canonical form urn:nbn:fr:x-1 does not lie under the one rule's prefix, urn:nbn:de:101-\n"+
		"  DDDS       fr.nbn.example. has no NAPTR records, after nbn.urn.arpa. NAPTR 100 10") ||
		!strings.HasSuffix(out, "; a request is answered 404\n") {
		t.Errorf("a broken chain:\n%s", out)
	}

	// The DNS server is gone: a key not cached yet fails.
	stopDNS()
	out, _ = cli(t, exitInvalid, "rules", "test", "urn:isbn:9780262510875")
	if !strings.HasPrefix(out, "no rule applies to urn:isbn:9780262510875: its canonical form urn:isbn:9780262510875 does not lie under the one rule's prefix, urn:nbn:de:101-\n"+
		"  DDDS       the server's DNS server failed (a request is answered 503): DDDS discovery: DNS look-up of isbn.urn.arpa. NAPTR at "+addr) {
		t.Errorf("the DNS server down:\n%s", out)
	}
	if err := srv.Stop(t); err != nil {
		t.Fatal(err)
	}

	// A server without --dns.
	plain := startServer(t, data)
	out, _ = cli(t, exitInvalid, "rules", "test", "urn:nbn:de:gbv:7-1", "--server", plain.URL)
	if want := "no rule applies to urn:nbn:de:gbv:7-1: its canonical form urn:nbn:de:gbv:7-1 does not lie under the one rule's prefix, urn:nbn:de:101-\n" +
		"  DDDS       DDDS discovery is off: the server runs without --dns; a request is answered 404\n"; out != want {
		t.Errorf("without --dns:\n%s\nwant\n%s", out, want)
	}
	if err := plain.Stop(t); err != nil {
		t.Fatal(err)
	}

	// The data directory itself: the server's discovery is not there.
	t.Setenv(envServer, "")
	cli(t, exitOK, "rules", "add", "urn:nbn:de:bsz:", "https://bsz.example/", "--data", data)
	out, _ = cli(t, exitInvalid, "rules", "test", "urn:nbn:de:gbv:7-1", "--data", data)
	if !strings.HasPrefix(out, "no rule applies to urn:nbn:de:gbv:7-1: its canonical form urn:nbn:de:gbv:7-1 lies under none of the 2 rules' prefixes\n"+
		"  DDDS       a server running on this directory with --dns would then try DDDS discovery") {
		t.Errorf("on the data directory:\n%s", out)
	}
}
