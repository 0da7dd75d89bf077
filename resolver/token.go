package resolver

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
)

// tokenPrefix marks urikit tokens, so that secret scanners and people can
// tell one when they see it.
const tokenPrefix = "urikit_"

// NewToken returns a fresh random token: 256 bits from crypto/rand.
func NewToken() string {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand since Go 1.24)
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// HashToken is how a token is stored and looked up.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// sameSecret compares two secrets in constant time.
func sameSecret(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}
