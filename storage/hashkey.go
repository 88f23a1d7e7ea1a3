package storage

import (
	"database/sql/driver"
	"encoding/hex"
	"fmt"

	"github.com/cairnmem/cairn/storage/dialect"
)

// Content hashes (text.NormalizeContent: the SHA-256 of the normalized
// content, 64 lowercase hex characters) are stored as their 32 bytes, a
// BLOB: half the size in each memory, its live-hash index entry, each
// vector row and the vectors' key (migration 0017). Everything above
// storage sees the hex text; a value that is not 64 lowercase hex
// characters (written by another tool, or by a test) is stored as the
// text it is, and reads back the same. On PostgreSQL it is text: the hex.

// hashArg is the stored form of hash h, to bind as a query argument of q.
func hashArg(q Querier, h string) any {
	if len(h) != 64 || dialect.Of(q) != dialect.SQLite {
		return h
	}
	b, err := hex.DecodeString(h)
	if err != nil || hex.EncodeToString(b) != h {
		return h
	}
	return b
}

// hashList selects the stored forms of the hex hashes of a JSON array
// bound as one argument (jsonList): `content_hash IN %s`.
var hashList = dialect.Fragment{`(SELECT CASE WHEN length(value) = 64 AND value NOT GLOB '*[^0-9a-f]*' THEN unhex(value) ELSE value END
	FROM json_each(?))`, "(" + textList.In(dialect.Postgres) + ")"}

// hashCol scans a stored content hash into its hex text.
type hashCol struct{ s *string }

// Scan implements sql.Scanner.
func (h hashCol) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		if len(v) == 32 {
			*h.s = hex.EncodeToString(v)
		} else {
			*h.s = string(v)
		}
	case string:
		*h.s = v
	case nil:
		*h.s = ""
	default:
		return fmt.Errorf("content hash: unexpected %T", src)
	}
	return nil
}

var _ driver.Value = []byte(nil)
