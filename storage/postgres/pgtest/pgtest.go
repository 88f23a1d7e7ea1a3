// Package pgtest starts a throwaway PostgreSQL cluster for a test: initdb
// into a temporary folder, the server on a free port of 127.0.0.1 with
// its unix socket in that folder, password authentication (scram), and
// pg_ctl stop with the folder removed when the test ends. Never a
// system-wide cluster. Without initdb the test is skipped, unless
// CAIRN_TEST_POSTGRES=require, which makes it fail.
//
// Run as root (initdb refuses), the cluster's programs run as the
// postgres user, or nobody, owning the folder.
package pgtest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// EnvVar set to "require" makes a missing PostgreSQL a failure, not a skip.
const EnvVar = "CAIRN_TEST_POSTGRES"

// User is the cluster's superuser.
const User = "cairn"

// Cluster is a running throwaway server.
type Cluster struct {
	Dir      string // the cluster's folder: data, socket, log
	Port     int
	Password string // User's, random
}

// URL is a connection URL of database db (postgres when empty), with the
// password in it.
func (c *Cluster) URL(db string) string {
	if db == "" {
		db = "postgres"
	}
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", User, c.Password, c.Port, db)
}

// URLWithoutPassword is URL(db) with no password in it.
func (c *Cluster) URLWithoutPassword(db string) string {
	if db == "" {
		db = "postgres"
	}
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", User, c.Port, db)
}

// Start starts a cluster of t's own, stopped and removed when t ends: for
// a test that needs the whole server (stopping it, its settings). Most
// tests want a database of their own on the package's Shared cluster.
func Start(t testing.TB) *Cluster {
	t.Helper()
	c, stop, err := start()
	if stop != nil {
		t.Cleanup(stop)
	}
	if err != nil {
		fail(t, err)
	}
	return c
}

// errMissing is a PostgreSQL that is not installed: a skip, unless
// EnvVar=require.
type errMissing struct{ err error }

func (e errMissing) Error() string { return e.err.Error() }

func fail(t testing.TB, err error) {
	t.Helper()
	var missing errMissing
	if errors.As(err, &missing) && os.Getenv(EnvVar) != "require" {
		t.Skipf("pgtest: no PostgreSQL here (%v); install Debian's postgresql or set %s=require to fail", err, EnvVar)
	}
	if errors.As(err, &missing) {
		t.Fatalf("pgtest: %v (%s=require)", err, EnvVar)
	}
	t.Fatalf("pgtest: %v", err)
}

// start initdbs and starts a cluster; stop (when not nil) stops it and
// removes its folder, also after an error.
func start() (c *Cluster, stop func(), err error) {
	initdb, err := findBin("initdb")
	if err != nil {
		return nil, nil, errMissing{err}
	}
	pgctl, err := findBin("pg_ctl")
	if err != nil {
		return nil, nil, fmt.Errorf("initdb without pg_ctl: %w", err)
	}
	// Not t.TempDir: the socket's path must stay short (107 bytes), and
	// the folder may belong to another user.
	dir, err := os.MkdirTemp("", "cairn-pg-")
	if err != nil {
		return nil, nil, err
	}
	stops := []func(){func() { os.RemoveAll(dir) }}
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	cred, err := credential(dir)
	if err != nil {
		return nil, stop, err
	}
	pw := make([]byte, 12)
	if _, err := rand.Read(pw); err != nil {
		return nil, stop, err
	}
	c = &Cluster{Dir: dir, Password: hex.EncodeToString(pw)}
	pwFile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwFile, []byte(c.Password+"\n"), 0o600); err != nil {
		return nil, stop, err
	}
	if err := chown(pwFile, cred); err != nil {
		return nil, stop, err
	}
	data := filepath.Join(dir, "data")
	if err := run(cred, initdb, "-D", data, "-U", User, "--pwfile", pwFile, "--auth", "scram-sha-256",
		"--encoding", "UTF8", "--locale", "C", "--no-sync"); err != nil {
		return nil, stop, err
	}
	os.Remove(pwFile)

	for attempt := 0; ; attempt++ {
		c.Port, err = freePort()
		if err != nil {
			return nil, stop, err
		}
		opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", c.Port, dir)
		out, err := command(cred, pgctl, "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "30", "start").CombinedOutput()
		if err == nil {
			break
		}
		if attempt == 2 {
			logText, _ := os.ReadFile(filepath.Join(dir, "log"))
			return nil, stop, fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, logText)
		}
	}
	stops = append(stops, func() {
		if out, err := command(cred, pgctl, "-D", data, "-m", "immediate", "-w", "stop").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: pg_ctl stop: %v\n%s\n", err, out)
		}
	})
	return c, stop, nil
}

func findBin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	// Debian keeps them off PATH.
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(matches) > 0 {
		return matches[len(matches)-1], nil
	}
	return "", fmt.Errorf("%s not found", name)
}

// credential is who runs the cluster: this process, or when it is root
// the postgres user (else nobody), made owner of dir.
func credential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var u *user.User
	var err error
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("running as root and no postgres or nobody user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	return cred, chown(dir, cred)
}

func chown(path string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	return os.Chown(path, int(cred.Uid), int(cred.Gid))
}

func command(cred *syscall.Credential, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Dir = "/"
	}
	return cmd
}

func run(cred *syscall.Credential, name string, args ...string) error {
	var out bytes.Buffer
	cmd := command(cred, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v\n%s", filepath.Base(name), err, out.String())
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
