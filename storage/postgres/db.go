package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/cairnmem/cairn/storage/schema"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

var (
	ErrSchemaNewer = schema.ErrSchemaNewer
	ErrBadChecksum = schema.ErrBadChecksum
	ErrOldServer   = errors.New("PostgreSQL server too old")
	ErrNoPassword  = errors.New("password file is empty")
)

// MinServerVersion is the oldest PostgreSQL server Open accepts
// (server_version_num): 15.
const MinServerVersion = 150000

// DefaultConnectTimeout bounds a connection's start when the URL sets no
// connect_timeout.
const DefaultConnectTimeout = 10 * time.Second

// Options says what Open opens.
type Options struct {
	// URL is a libpq connection string: postgres://user[:password]@host:port/db?…
	// or key=value pairs. Its password, if any, is never shown.
	URL string
	// PasswordFile, when set, holds the password (its first line,
	// surrounding white space trimmed); it overrides the URL's. Without
	// either, pgx reads PGPASSWORD, then PGPASSFILE or ~/.pgpass, as libpq
	// does.
	PasswordFile string
	// MaxConns bounds the pool (database/sql's open connections); 0: 16.
	MaxConns int
}

// DB is an open, migrated PostgreSQL database.
type DB struct {
	sql      *sql.DB
	cfg      *pgx.ConnConfig
	redact   redactor
	migrated []int
}

// Open connects to the database opts.URL names, checks the server's
// version and applies the migrations not yet applied, once, under an
// advisory lock: servers starting together wait for each other, and the
// first applies them. Every error it returns has the password and the URL
// redacted.
func Open(ctx context.Context, opts Options) (*DB, error) {
	r := redactor{url: opts.URL}
	cfg, err := pgx.ParseConfig(opts.URL)
	if err != nil {
		return nil, r.err(fmt.Errorf("postgres: parse %s: %w", Redact(opts.URL), err))
	}
	if cfg.ConnectTimeout == 0 {
		// A server that never answers (a dropped packet) is reported in
		// seconds, not after the system's TCP timeout.
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.PasswordFile != "" {
		b, err := os.ReadFile(opts.PasswordFile)
		if err != nil {
			return nil, r.err(fmt.Errorf("postgres: password file: %w", err))
		}
		pw, _, _ := strings.Cut(string(b), "\n")
		pw = strings.TrimSpace(pw)
		if pw == "" {
			return nil, fmt.Errorf("postgres: %s: %w", opts.PasswordFile, ErrNoPassword)
		}
		cfg.Password = pw
	}
	r.password = cfg.Password
	db := &DB{cfg: cfg, redact: r}
	db.sql = stdlib.OpenDB(*cfg)
	maxConns := opts.MaxConns
	if maxConns <= 0 {
		maxConns = 16
	}
	db.sql.SetMaxOpenConns(maxConns)
	db.sql.SetMaxIdleConns(maxConns)
	if err := db.open(ctx); err != nil {
		db.sql.Close()
		return nil, r.err(fmt.Errorf("postgres: open %s: %w", Redact(opts.URL), err))
	}
	return db, nil
}

func (db *DB) open(ctx context.Context) error {
	var v int
	if err := db.sql.QueryRowContext(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&v); err != nil {
		return err
	}
	if err := checkServerVersion(v); err != nil {
		return err
	}
	ms, err := Migrations()
	if err != nil {
		return err
	}
	return db.migrate(ctx, ms)
}

// checkServerVersion refuses a server older than MinServerVersion (v is
// its server_version_num: 150004 for 15.4, 90624 for 9.6.24).
func checkServerVersion(v int) error {
	if v < MinServerVersion {
		return fmt.Errorf("%w: the server is %d.%d, cairn needs %d or newer", ErrOldServer, v/10000, v%10000, MinServerVersion/10000)
	}
	return nil
}

// Close closes the pool.
func (db *DB) Close() error { return db.sql.Close() }

// Migrated lists the versions this Open applied (none when another server
// had applied them).
func (db *DB) Migrated() []int { return append([]int(nil), db.migrated...) }

// Redacted is the URL the database was opened with, its password hidden.
func (db *DB) Redacted() string { return Redact(db.redact.url) }

// Redact hides the password of a connection string: in a URL's user
// information and its password parameter, and in a key=value string's
// password.
func Redact(conn string) string {
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		u, err := url.Parse(conn)
		if err != nil {
			return "postgres://(unparsable URL hidden)"
		}
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.Redacted()
	}
	return kvPassword.ReplaceAllString(conn, "${1}xxxxx")
}

var kvPassword = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// redactor scrubs the password and the raw connection string out of an
// error's text, whatever put them there (a driver's message quoting its
// configuration, a wrapped parse error).
type redactor struct{ url, password string }

func (r redactor) err(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	scrubbed := r.scrub(msg)
	if scrubbed == msg {
		return err
	}
	return &redactedError{msg: scrubbed, err: err}
}

func (r redactor) scrub(s string) string {
	if r.url != "" {
		s = strings.ReplaceAll(s, r.url, Redact(r.url))
	}
	if r.password != "" {
		s = strings.ReplaceAll(s, r.password, "xxxxx")
		if esc := url.QueryEscape(r.password); esc != r.password {
			s = strings.ReplaceAll(s, esc, "xxxxx")
		}
		if esc := url.PathEscape(r.password); esc != r.password {
			s = strings.ReplaceAll(s, esc, "xxxxx")
		}
	}
	return s
}

// redactedError is an error whose text was scrubbed; errors.Is and As
// still reach what it wraps.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
