package urn

import "errors"

// isbn is the ISBN namespace (RFC 3187).
//
// Equivalence is RFC 3187 §3.2's: "remove all hyphens, and ... convert any
// occurrences of the letter X to upper case", applied to every NSS, valid
// check digit or not (urn:isbn:0-395-36341-2 and urn:isbn:0395363412 are
// equivalent; whether either is a valid ISBN is Validate's question). One
// rule goes beyond RFC 3187: an ISBN-10 and the ISBN-13 made from it by
// the "978" prefix name the same book, so a valid ISBN-10 keys as that
// ISBN-13. It is kept to ISBN-10s whose check digit is valid, because it
// recomputes the check digit: applied to an invalid one, it would make
// different strings equal (0-395-36341-2 and 0-395-36341-1 would share
// 9780395363416).
type isbn struct{}

func init() { register(isbn{}) }

func (isbn) NID() string       { return "isbn" }
func (isbn) Reference() string { return "RFC 3187" }
func (isbn) Rule() string {
	return `hyphens ignored, "x" equals "X" (RFC 3187 §3.2); a valid ISBN-10 compared as its ISBN-13`
}

func (isbn) Validate(nss string) error {
	_, err := isbnDigits(nss)
	return err
}

func (isbn) Normalize(nss string) (string, error) {
	k := dropHyphensUpperX(nss)
	// The ISBN-10 is read from the text the RFC 3187 rule leaves, so that
	// where the hyphens stood does not matter (and a key is its own key).
	if len(k) == 10 && isbn10Valid(k) {
		// ISBN-10 -> ISBN-13: prefix 978, drop the old check digit, recompute.
		b := append([]byte("978"), k[:9]...)
		return string(append(b, isbn13Check(b))), nil
	}
	return k, nil
}

// isbn10Valid reports whether d, ten characters, is nine digits and a
// check character (a digit or "X") that the mod-11 sum accepts.
func isbn10Valid(d string) bool {
	sum := 0
	for i := 0; i < 10; i++ {
		c := d[i]
		v := int(c - '0')
		switch {
		case c >= '0' && c <= '9':
		case c == 'X' && i == 9:
			v = 10
		default:
			return false
		}
		sum += (10 - i) * v
	}
	return sum%11 == 0
}

// dropHyphensUpperX removes every '-' and upper-cases every 'x': the
// comparison rule of RFC 3187 §3.2 (ISBN) and RFC 3044 §3.1 (ISSN).
func dropHyphensUpperX(nss string) string {
	b := make([]byte, 0, len(nss))
	for i := 0; i < len(nss); i++ {
		switch c := nss[i]; c {
		case '-':
		case 'x':
			b = append(b, 'X')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// isbnDigits returns the digits of an ISBN-10 or ISBN-13 (X upper-cased)
// after checking its check digit.
func isbnDigits(nss string) ([]byte, error) {
	d := make([]byte, 0, 13)
	for i := 0; i < len(nss); i++ {
		c := nss[i]
		switch {
		case c >= '0' && c <= '9':
			d = append(d, c)
		case c == '-':
			if i == 0 || i == len(nss)-1 || nss[i-1] == '-' {
				return nil, errors.New("misplaced hyphen")
			}
		case (c == 'X' || c == 'x') && i == len(nss)-1 && len(d) == 9:
			d = append(d, 'X')
		default:
			return nil, errors.New("an ISBN holds only digits, hyphens and a final X")
		}
		if len(d) > 13 {
			return nil, errors.New("too many digits for an ISBN")
		}
	}
	switch len(d) {
	case 10:
		if !isbn10Valid(string(d)) {
			return nil, errors.New("bad ISBN-10 check digit")
		}
	case 13:
		if string(d[:3]) != "978" && string(d[:3]) != "979" {
			return nil, errors.New(`an ISBN-13 starts with "978" or "979"`)
		}
		if isbn13Check(d[:12]) != d[12] {
			return nil, errors.New("bad ISBN-13 check digit")
		}
	default:
		return nil, errors.New("an ISBN has 10 or 13 digits")
	}
	return d, nil
}

// isbn13Check computes the EAN-13 check digit of 12 digits.
func isbn13Check(d []byte) byte {
	sum := 0
	for i, c := range d[:12] {
		w := 1
		if i%2 == 1 {
			w = 3
		}
		sum += w * int(c-'0')
	}
	return byte('0' + (10-sum%10)%10)
}
