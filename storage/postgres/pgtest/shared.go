package pgtest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// One cluster per test process, shared by its tests, each in a database
// of its own: initdb and the server's start cost a second or more each,
// a database copied from a template a few milliseconds. The package's
// TestMain calls Main, which stops the cluster when the tests end.

var shared struct {
	sync.Mutex
	main      bool
	c         *Cluster
	stop      func()
	err       error
	n         int
	templates map[string]*template
}

type template struct {
	once sync.Once
	err  error
}

// Main runs m's tests and then stops the shared cluster, if one started.
// Call it from TestMain in a package whose tests use Shared.
func Main(m *testing.M) {
	shared.main = true
	code := m.Run()
	shared.Lock()
	if shared.stop != nil {
		shared.stop()
	}
	shared.Unlock()
	os.Exit(code)
}

// Shared is the test process's cluster, started on first use. Give each
// test a database of its own on it (Database, DatabaseFrom).
func Shared(t testing.TB) *Cluster {
	t.Helper()
	shared.Lock()
	if !shared.main {
		shared.Unlock()
		t.Fatal("pgtest: Shared needs pgtest.Main in the package's TestMain, which stops the cluster")
	}
	if shared.c == nil && shared.err == nil {
		shared.c, shared.stop, shared.err = start()
	}
	c, err := shared.c, shared.err
	shared.Unlock()
	if err != nil {
		fail(t, err)
	}
	return c
}

// Database creates an empty database on c and returns its name.
func (c *Cluster) Database(t testing.TB) string {
	t.Helper()
	name := c.newName()
	if err := c.exec(fmt.Sprintf(`CREATE DATABASE %q`, name)); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return name
}

// DatabaseFrom creates a database copied from the template called
// template, which setup fills once per cluster (given its URL, and
// closing every connection to it before it returns), and returns the
// new database's name: a migrated store in milliseconds.
func (c *Cluster) DatabaseFrom(t testing.TB, template string, setup func(url string) error) string {
	t.Helper()
	tpl := c.template(template)
	tpl.once.Do(func() {
		if tpl.err = c.exec(fmt.Sprintf(`CREATE DATABASE %q`, template)); tpl.err != nil {
			return
		}
		if err := setup(c.URL(template)); err != nil {
			tpl.err = fmt.Errorf("setting up template %s: %w", template, err)
		}
	})
	if tpl.err != nil {
		t.Fatalf("pgtest: %v", tpl.err)
	}
	name := c.newName()
	// Copies serialized: a copy needs its template free of connections.
	tplCopy.Lock()
	err := c.exec(fmt.Sprintf(`CREATE DATABASE %q TEMPLATE %q`, name, template))
	tplCopy.Unlock()
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return name
}

var tplCopy sync.Mutex

func (c *Cluster) template(name string) *template {
	shared.Lock()
	defer shared.Unlock()
	if shared.templates == nil {
		shared.templates = map[string]*template{}
	}
	key := fmt.Sprintf("%d/%s", c.Port, name)
	tpl := shared.templates[key]
	if tpl == nil {
		tpl = &template{}
		shared.templates[key] = tpl
	}
	return tpl
}

func (c *Cluster) newName() string {
	shared.Lock()
	defer shared.Unlock()
	shared.n++
	return fmt.Sprintf("t%d", shared.n)
}

// exec runs one statement on the cluster's postgres database.
func (c *Cluster) exec(stmt string) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.URL(""))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", stmt, err)
	}
	return nil
}
