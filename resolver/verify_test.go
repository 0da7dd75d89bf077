package resolver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/urikit/urikit/urn"
)

// FuzzStateDiff: Verify's comparison of a stored record and its keys with
// the history's snapshot of it. A record the Service could have written
// agrees with its own snapshot, by the fast path (the same bytes) and
// field by field alike, and so do the keys the Service writes for it; a
// change to any one field, or a key the history does not account for, is
// a difference that names the field; and whenever the stored record
// encodes to the snapshot's bytes, the field-by-field comparison agrees
// (the fast path never hides a difference).
func FuzzStateDiff(f *testing.F) {
	f.Add("book-1", "https://example.org/b", "Landing page", `{"t":"<b>&</b>"}`, "book-alias", uint8(0), uint8(0))
	f.Add("x", "http://a/", "", ``, "", uint8(3), uint8(1))
	f.Add("A%2Fb", "ftp://h/p?q#f", "é\u2028", `{"n":[1,2],"s":"\u00e9"}`, "a-2", uint8(7), uint8(2))
	f.Fuzz(func(t *testing.T, nss, url, label, meta, alias string, field, keyEdit uint8) {
		u, err := urn.Parse("urn:example:" + nss)
		if err != nil || len(u.AssignedName()) != len(u.String()) {
			return
		}
		for _, s := range []string{url, label, meta, alias} {
			if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
				return // the Service stores UTF-8 text without NUL only
			}
		}
		m, err := checkMetadata(json.RawMessage(meta), 1<<20)
		if err != nil {
			m = json.RawMessage(`{}`)
		}
		at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
		rec := Record{ID: 7, URN: u.String(), Key: u.Key(), Locations: []Location{{URL: url, Label: label, Key: url}},
			Metadata: m, Status: Active, Redirect: DefaultRedirect, AuthorityID: 3, Created: at, Updated: at}
		keys := []Key{{Key: rec.Key, Spelling: rec.URN, RecordID: 7, Role: RoleName, Version: urn.KeyVersion}}
		if au, err := urn.Parse("urn:example:" + alias); err == nil && alias != "" && len(au.AssignedName()) == len(au.String()) && au.Key() != rec.Key {
			rec.Aliases = []string{au.String()}
			keys = append(keys, Key{Key: au.Key(), Spelling: au.String(), RecordID: 7, Role: RoleAlias, Version: urn.KeyVersion})
		}
		data, err := rec.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var snap Record
		if err := json.Unmarshal(data, &snap); err != nil {
			t.Fatalf("a snapshot does not decode: %v\n%s", err, data)
		}
		if d := diffRecord(rec, snap); d != "" {
			t.Fatalf("a record differs from its own snapshot: %s", d)
		}
		never := func(string) (bool, error) { return false, nil }
		if d, err := diffKeys(keys, snap, never); d != "" || err != nil {
			t.Fatalf("the Service's keys differ from the snapshot: %s %v", d, err)
		}

		mut := rec.clone()
		name := ""
		switch field % 9 {
		case 0:
			mut.Locations[0].URL, name = url+"x", "locations[0].url"
		case 1:
			mut.Locations[0].Label, name = label+"x", "locations[0].label"
		case 2:
			mut.Locations[0].Type, name = "text/html", "locations[0].type"
		case 3:
			mut.Status, name = Withdrawn, "status"
		case 4:
			mut.Redirect, name = 307, "redirect"
		case 5:
			mut.Metadata, name = json.RawMessage(`{"forged":true}`), "metadata"
		case 6:
			mut.Aliases, name = append(mut.Aliases, "urn:example:forged"), "aliases"
		case 7:
			mut.Updated, name = at.Add(time.Microsecond), "updated"
		case 8:
			mut.Locations, name = append(mut.Locations, Location{URL: "http://b/"}), "the number of locations"
		}
		if bytes.Equal(mut.Metadata, rec.Metadata) && name == "metadata" {
			return // the input was that very object
		}
		d := diffRecord(mut, snap)
		if !strings.HasPrefix(d, name+" is ") {
			t.Fatalf("changing %s: %q", name, d)
		}
		if enc, err := mut.MarshalJSON(); err == nil && bytes.Equal(enc, data) {
			t.Fatalf("changing %s left the encoding as it was, so the fast path would miss it", name)
		}

		forged := append([]Key(nil), keys...)
		switch keyEdit % 3 {
		case 0:
			forged = append(forged, Key{Key: "urn:example:forged", Spelling: "urn:example:forged", RecordID: 7, Role: RoleAlias, Version: urn.KeyVersion})
		case 1:
			forged = forged[1:] // the name's key gone
		case 2:
			forged = append(forged, Key{Key: "urn:example:squat", Spelling: "urn:example:squat", RecordID: 7, Role: RoleRetired, Version: urn.KeyVersion})
		}
		if d, err := diffKeys(forged, snap, never); d == "" || err != nil {
			t.Fatalf("forged keys %+v pass: %v", forged, err)
		}
	})
}
