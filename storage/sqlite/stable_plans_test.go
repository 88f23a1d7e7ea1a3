package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

// A statement whose LIMIT is a bound value runs again with another limit
// without being parsed and planned again, on every kind of connection the
// store opens (without the planner stability guarantee, this SQLite
// prepares it anew at each new limit: every recall did).
func TestLimitParameterKeepsTheStatement(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "q.db")
	db, err := Open(ctx, Options{Path: path, NoBackup: true, ReadConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ro, err := OpenReadOnly(ctx, Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := db.WriteTx(ctx, func(tx *Tx) error {
		return tx.ExecScript(ctx, `CREATE TABLE plan_probe (x INTEGER);
			WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 100) INSERT INTO plan_probe SELECT i FROM r`)
	}); err != nil {
		t.Fatal(err)
	}
	for name, pool := range map[string]*sql.DB{"writer": db.write, "reader": db.read, "background reader": db.side,
		"checkpointer": db.changes.ckpt.conn, "read-only store": ro.read} {
		conn, err := pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = conn.Raw(func(dc any) error {
			c := dc.(interface{ Raw() *sqlite3.Conn }).Raw()
			st, _, err := c.Prepare(`SELECT x FROM plan_probe ORDER BY x DESC LIMIT ?`)
			if err != nil {
				return err
			}
			defer st.Close()
			for limit := 1; limit <= 10; limit++ {
				if err := st.BindInt(1, limit); err != nil {
					return err
				}
				n := 0
				for st.Step() {
					n++
				}
				if err := st.Reset(); err != nil {
					return err
				}
				if n != limit {
					t.Errorf("%s: LIMIT %d gave %d rows", name, limit, n)
				}
			}
			if n := st.Status(sqlite3.STMTSTATUS_REPREPARE, false); n != 0 {
				t.Errorf("%s: the statement was prepared again %d times for 10 limits", name, n)
			}
			return nil
		})
		conn.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}
