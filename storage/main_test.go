package storage

import (
	"testing"

	"github.com/cairnmem/cairn/storage/postgres/pgtest"
)

// TestMain stops the PostgreSQL cluster the tests share (pgtest.Shared).
func TestMain(m *testing.M) { pgtest.Main(m) }
