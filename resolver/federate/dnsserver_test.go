package federate

import (
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// testDNS is a real DNS server on 127.0.0.1, UDP and TCP on one free port,
// serving a zone read from zone-file text with miekg/dns's parser: the
// records travel through the wire format, escaping and all.
type testDNS struct {
	addr string

	mu       sync.Mutex
	rrs      map[string][]dns.RR // owner (lower case) → records
	servfail map[string]bool     // owners answered SERVFAIL
	refused  map[string]bool     // owners answered REFUSED
	delay    time.Duration       // before every answer
	queries  map[string]int      // "name TYPE net" → count
	inFlight int
	maxIn    int
}

func startDNS(t testing.TB, zoneFile string) *testDNS {
	t.Helper()
	text, err := os.ReadFile(zoneFile)
	if err != nil {
		t.Fatal(err)
	}
	s := &testDNS{servfail: map[string]bool{}, refused: map[string]bool{}, queries: map[string]int{}}
	s.load(t, string(text))

	var pc net.PacketConn
	var ln net.Listener
	for try := 0; ; try++ {
		pc, err = net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln, err = net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			break
		}
		pc.Close()
		if try == 20 {
			t.Fatalf("no free port for UDP and TCP: %v", err)
		}
	}
	s.addr = pc.LocalAddr().String()
	var started sync.WaitGroup
	started.Add(2)
	udp := &dns.Server{PacketConn: pc, Handler: s, NotifyStartedFunc: started.Done}
	tcp := &dns.Server{Listener: ln, Handler: s, NotifyStartedFunc: started.Done}
	go udp.ActivateAndServe()
	go tcp.ActivateAndServe()
	started.Wait()
	t.Cleanup(func() {
		udp.Shutdown()
		tcp.Shutdown()
	})
	return s
}

// load replaces the zone with the records in text.
func (s *testDNS) load(t testing.TB, text string) {
	t.Helper()
	zp := dns.NewZoneParser(strings.NewReader(text), ".", "test.zone")
	rrs := map[string][]dns.RR{}
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		name := strings.ToLower(rr.Header().Name)
		rrs[name] = append(rrs[name], rr)
	}
	if err := zp.Err(); err != nil {
		t.Fatalf("zone: %v", err)
	}
	s.mu.Lock()
	s.rrs = rrs
	s.mu.Unlock()
}

func (s *testDNS) count(name string, qtype uint16, network string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[strings.ToLower(name)+" "+dns.TypeToString[qtype]+" "+network]
}

func (s *testDNS) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.queries {
		n += c
	}
	return n
}

func (s *testDNS) set(f func(*testDNS)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

func (s *testDNS) ServeDNS(w dns.ResponseWriter, r *dns.Msg) {
	network := "udp"
	if _, ok := w.RemoteAddr().(*net.TCPAddr); ok {
		network = "tcp"
	}
	m := new(dns.Msg)
	m.SetReply(r)
	m.Authoritative = true
	if len(r.Question) != 1 {
		m.Rcode = dns.RcodeFormatError
		w.WriteMsg(m)
		return
	}
	q := r.Question[0]
	name := strings.ToLower(q.Name)

	s.mu.Lock()
	s.queries[name+" "+dns.TypeToString[q.Qtype]+" "+network]++
	s.inFlight++
	s.maxIn = max(s.maxIn, s.inFlight)
	delay := s.delay
	switch {
	case s.servfail[name]:
		m.Rcode = dns.RcodeServerFailure
	case s.refused[name]:
		m.Rcode = dns.RcodeRefused
	default:
		owner := name
		for hops := 0; hops < 8; hops++ {
			var next string
			for _, rr := range s.rrs[owner] {
				if c, ok := rr.(*dns.CNAME); ok && q.Qtype != dns.TypeCNAME {
					m.Answer = append(m.Answer, dns.Copy(c))
					next = strings.ToLower(c.Target)
				}
			}
			if next == "" {
				break
			}
			owner = next
		}
		for _, rr := range s.rrs[owner] {
			if rr.Header().Rrtype == q.Qtype {
				m.Answer = append(m.Answer, dns.Copy(rr))
			}
		}
		if len(m.Answer) == 0 {
			if _, exists := s.rrs[owner]; !exists {
				m.Rcode = dns.RcodeNameError
			}
			for _, rr := range s.rrs["."] {
				if soa, ok := rr.(*dns.SOA); ok {
					m.Ns = append(m.Ns, dns.Copy(soa))
				}
			}
		}
	}
	s.mu.Unlock()

	if delay > 0 {
		time.Sleep(delay)
	}
	// Leave the count before the answer goes out: the client cannot
	// have it, and have freed its slot, while this handler still counts.
	s.mu.Lock()
	s.inFlight--
	s.mu.Unlock()
	if network == "udp" {
		size := dns.MinMsgSize
		if opt := r.IsEdns0(); opt != nil {
			size = int(opt.UDPSize())
		}
		m.Truncate(size)
	}
	w.WriteMsg(m)
}

// silentDNS is a UDP socket that reads queries and never answers: a dead
// or black-holed DNS server.
type silentDNS struct {
	addr    string
	packets atomic.Int64
}

func startSilentDNS(t *testing.T) *silentDNS {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &silentDNS{addr: pc.LocalAddr().String()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 65536)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			s.packets.Add(1)
		}
	}()
	t.Cleanup(func() {
		pc.Close()
		<-done
	})
	return s
}
