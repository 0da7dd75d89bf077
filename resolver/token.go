package resolver

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
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

// tokenFingerprint is what the history records of a token's hash: a
// SHA-256 over it, apart from every other use of SHA-256 by its prefix. It
// pins the hash as well as the hash itself would (Verify compares it with
// the fingerprint of the hash stored), but it is not the value a token is
// looked up by: the history is read and copied more widely than the tokens
// table (exports of entries, replicas, people auditing it), and need not
// carry a credential's lookup key.
func tokenFingerprint(hash []byte) string {
	h := sha256.New()
	h.Write([]byte("urikit-token-fingerprint-v1\x00"))
	h.Write(hash)
	return hex.EncodeToString(h.Sum(nil))
}

// sameSecret compares two secrets in constant time.
func sameSecret(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}
