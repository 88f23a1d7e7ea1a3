package postgres

import (
	"testing"

	"github.com/cairnmem/cairn/storage/postgres/pgtest"
)

// TestMain stops the cluster the tests share (pgtest.Shared).
func TestMain(m *testing.M) { pgtest.Main(m) }
