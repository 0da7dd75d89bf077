package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

// TestTextFields: what the Service accepts as text is stored and read back
// exactly (non-ASCII, quotes, backslashes, control characters), and what
// PostgreSQL's text cannot hold (NUL) is refused as invalid input before
// it reaches the database, never an internal error.
func TestTextFields(t *testing.T) {
	ctx := context.Background()
	st := open(t, cluster.NewDB(t), postgres.Options{})
	svc := resolver.New(st, resolver.Options{AdminToken: "admin", CacheSize: -1})
	admin, _ := svc.Authenticate(ctx, "admin")
	odd := "Zoë «quoted» \"q\" \\ \t\x01 𝄞"
	a, tok, err := svc.CreateAuthority(ctx, admin, odd, []string{"urn:example:"})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := svc.Authenticate(ctx, tok)
	in := resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/x", Type: `text/plain; charset="utf-8"`, Label: odd}},
		Metadata: []byte(`{"t":"` + "\\u0000 é" + `"}`)}
	if _, _, err := svc.Put(ctx, m, "urn:example:text", in); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Withdraw(ctx, m, "urn:example:text", odd, ""); err != nil {
		t.Fatal(err)
	}
	rec, err := svc.Lookup(ctx, urn.MustParse("urn:example:text"))
	if err != nil || rec.Locations[0].Label != odd || rec.Reason != odd || string(rec.Metadata) != `{"t":"\u0000 é"}` {
		t.Fatalf("read back: %+v %v", rec, err)
	}
	if got, err := st.Authority(ctx, a.ID); err != nil || got.Name != odd {
		t.Fatalf("authority name: %q %v", got.Name, err)
	}
	for field, bad := range map[string]resolver.RecordInput{
		"locations[0].label": {Locations: []resolver.Location{{URL: "https://example.org/y", Label: "a\x00b"}}},
		"locations[0].type":  {Locations: []resolver.Location{{URL: "https://example.org/y", Type: "text/plain; a=\"\x00\""}}},
	} {
		_, _, err := svc.Put(ctx, m, "urn:example:nul", bad)
		var e *resolver.Error
		if resolver.KindOf(err) != resolver.KindInvalid || !errors.As(err, &e) || e.Field != field {
			t.Errorf("%s with NUL: %v, want invalid %s", field, err, field)
		}
	}
	if _, _, err := svc.CreateAuthority(ctx, admin, "a\x00b", []string{"urn:other:"}); resolver.KindOf(err) != resolver.KindInvalid {
		t.Errorf("authority name with NUL: %v", err)
	}
}
