package postgres

import (
	"strings"
	"testing"
)

// TestSchemaVersion: the constant names the last migration, and every
// migration is there (index 0 is unused: versions count from 1).
func TestSchemaVersion(t *testing.T) {
	if SchemaVersion != len(migrations)-1 {
		t.Fatalf("SchemaVersion %d, but the last migration is %d", SchemaVersion, len(migrations)-1)
	}
	for v := 1; v < len(migrations); v++ {
		if strings.TrimSpace(migrations[v]) == "" {
			t.Fatalf("migration %d is empty", v)
		}
	}
}
