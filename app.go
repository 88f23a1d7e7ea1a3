package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	cairn "github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/harness/shim"
	"github.com/cairnmem/cairn/core/hooks"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/core/transfer"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/embedding"
	"github.com/cairnmem/cairn/workers/rerank"
)

// commonFlags are accepted by every command.
type commonFlags struct {
	home, config, db, addr, logLevel string
	// database is a PostgreSQL URL (storage.url), instead of a file.
	database string
	// create makes a database that --db or storage.path names when none
	// is there (the default one is always created on first use).
	create bool
}

// args renders the common flags that were given, for a cairn this one
// starts (the hook shim's background server).
func (c *commonFlags) args() []string {
	var out []string
	for _, f := range []struct{ name, value string }{
		{"--home", c.home}, {"--config", c.config}, {"--db", c.db}, {"--database", c.database}, {"--addr", c.addr},
	} {
		if f.value != "" {
			out = append(out, f.name, f.value)
		}
	}
	return out
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.home, "home", "", "folder for config, data and logs (like CAIRN_HOME)")
	fs.StringVar(&c.config, "config", "", "config file")
	fs.StringVar(&c.db, "db", "", "database file (storage.path)")
	fs.StringVar(&c.database, "database", "", "PostgreSQL database shared by several servers, postgres://user@host:port/db (storage.url); the password from storage.password_file, PGPASSWORD or ~/.pgpass")
	fs.StringVar(&c.addr, "addr", "", "API address, host:port (server.addr)")
	fs.BoolVar(&c.create, "create", false, "create the database --db (or storage.path) names if it does not exist")
	fs.StringVar(&c.logLevel, "log-level", "", "least severe level logged: debug, info, warn or error (log.level)")
}

// configDefaults are the flags whose default the configuration and the
// environment decide ("command flag" for a command's own): -h shows the
// value this run would use, not the built-in one.
var configDefaults = map[string]func(*app) string{
	"home":                func(*app) string { return os.Getenv("CAIRN_HOME") },
	"config":              func(a *app) string { return a.paths.ConfigFile },
	"db":                  func(a *app) string { return a.paths.Database },
	"addr":                func(a *app) string { return a.cfg.Server.Addr },
	"log-level":           func(a *app) string { return a.cfg.Log.Level },
	"remember importance": func(a *app) string { return strconv.FormatFloat(a.cfg.Memory.DefaultImportance, 'g', -1, 64) },
	" theme":              func(a *app) string { return a.cfg.TUI.Theme },
	"token ttl":           func(a *app) string { return a.cfg.Auth.TokenTTL.D().String() },
}

// showEffectiveDefaults sets the defaults -h prints to the configuration
// the flags given so far, the environment and the config file make.
func showEffectiveDefaults(fs *flag.FlagSet, c *commonFlags) {
	a, err := loadApp(c)
	if err != nil {
		fmt.Printf("(the configuration does not load, so no default below comes from it: %v)\n\n", err)
		return
	}
	defer a.close()
	fs.VisitAll(func(f *flag.Flag) {
		get := configDefaults[fs.Name()+" "+f.Name]
		if get == nil {
			get = configDefaults[f.Name]
		}
		if get != nil {
			f.DefValue = get(a)
		}
	})
}

// newFlagSet returns a flag set whose -h output goes to stdout (help is
// an answer, not an error) and whose errors are returned, not printed.
func newFlagSet(name, usage string) (*flag.FlagSet, *commonFlags) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c := &commonFlags{}
	fs.Usage = func() {
		fs.SetOutput(os.Stdout)
		defer fs.SetOutput(io.Discard)
		fmt.Printf("usage: cairn %s\n\n", usage)
		showEffectiveDefaults(fs, c)
		fmt.Println("flags:")
		fs.PrintDefaults()
	}
	c.register(fs)
	return fs, c
}

// flagSink, when set, receives the flag set of a command asked for help
// instead of the help being printed: how `cairn completion` learns every
// command's flags from the commands themselves.
var flagSink func(*flag.FlagSet)

// parseFlags parses args allowing flags after positional arguments
// ("cairn remember some text --tags x"). -h prints the command's help on
// stdout and returns errHelp.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	usage := fs.Usage
	fs.Usage = func() {} // the flag package calls it on every error too
	defer func() { fs.Usage = usage }()
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				if flagSink != nil {
					flagSink(fs)
				} else {
					usage()
				}
				return nil, errHelp
			}
			name := strings.TrimSpace("cairn " + fs.Name())
			return nil, usageError{fmt.Sprintf("%v (run `%s -h` for its flags)", err, name)}
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// optFloat is a float flag that knows whether it was given; its help shows
// no "(default 0)", the text says what happens without it.
type optFloat struct {
	v   float64
	set bool
}

func (o *optFloat) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatFloat(o.v, 'g', -1, 64)
}

func (o *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("not a number")
	}
	o.v, o.set = v, true
	return nil
}

// optString is a string flag that knows whether it was given, so an empty
// value (--tags= to remove every tag) differs from no flag.
type optString struct {
	v   string
	set bool
}

func (o *optString) String() string {
	if o == nil {
		return ""
	}
	return o.v
}

func (o *optString) Set(s string) error { o.v, o.set = s, true; return nil }

// optBool is a boolean flag that knows whether it was given (--pinned,
// --pinned=false).
type optBool struct {
	v   bool
	set bool
}

func (o *optBool) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatBool(o.v)
}

func (o *optBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("not true or false")
	}
	o.v, o.set = v, true
	return nil
}

func (o *optBool) IsBoolFlag() bool { return true }

var errHelp = errors.New("help requested")

// app is a loaded configuration with its paths and logger.
type app struct {
	cfg   *config.Config
	paths config.Paths
	log   *slog.Logger
	close func()
	// create: a database named by --db or storage.path may be made.
	create bool
	// databaseFlag: storage.url came from --database (errors name it).
	databaseFlag bool
	// checkLater opens the store with its integrity check after the
	// open (storage.Options.CheckInBackground): a server answers sooner.
	checkLater bool
}

func loadApp(c *commonFlags) (*app, error) {
	overrides := map[string]string{}
	if c.addr != "" {
		overrides["server.addr"] = c.addr
	}
	if c.logLevel != "" {
		overrides["log.level"] = c.logLevel
	}
	if c.db != "" {
		abs, err := filepath.Abs(c.db)
		if err != nil {
			return nil, err
		}
		overrides["storage.path"] = abs
	}
	if c.database != "" {
		overrides["storage.url"] = c.database
	}
	cfg, paths, err := config.LoadConfig(config.LoadOptions{Home: c.home, ConfigFile: c.config, Overrides: overrides})
	if err != nil {
		if c.database != "" {
			err = namedFlag(err, "storage.url", "--database")
		}
		return nil, err
	}
	return &app{cfg: cfg, paths: paths, log: slog.New(slog.NewTextHandler(io.Discard, nil)), close: func() {}, create: c.create, databaseFlag: c.database != ""}, nil
}

// openLog sends logs to the log file, rotated by size (logrotate.go),
// and also to stderr when echo is set.
func (a *app) openLog(echo bool) error {
	if err := os.MkdirAll(filepath.Dir(a.paths.LogFile), 0o700); err != nil {
		return fmt.Errorf("create log folder: %w", err)
	}
	f, err := openRotating(a.paths.LogFile, logMaxBytes, logKeep)
	if err != nil {
		return fmt.Errorf("open log file: %w", err)
	}
	var w io.Writer = f
	if echo {
		w = io.MultiWriter(f, os.Stderr)
	}
	level := slog.LevelInfo
	_ = level.UnmarshalText([]byte(a.cfg.Log.Level))
	// No credential reaches the log file, at any level (text.RedactLogs).
	a.log = slog.New(text.RedactLogs(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})))
	prev := a.close
	a.close = func() { prev(); f.Close() }
	return nil
}

// store is an open database owned by this process.
type store struct {
	db   *storage.DB
	lock *storage.Lock
	app  *cairn.App    // the Service and every subsystem, built once (core/app)
	svc  *core.Service // app.Service
}

func (s *store) Close() error {
	err := s.db.Close()
	s.lock.Release()
	return err
}

// openStore takes the database lock and opens the store. If another cairn
// holds it, the error is a *storage.LockedError.
func (a *app) openStore(ctx context.Context) (*store, error) {
	if a.cfg.Storage.URL != "" {
		return a.openShared(ctx)
	}
	// A database the user named must exist: a typo in --db would
	// otherwise make a new, empty store and answer from it. The default
	// one is cairn's own, made on first use.
	if a.cfg.Storage.Path != "" && !a.create {
		if _, err := os.Stat(a.paths.Database); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no database at %s: check the path, or add --create to make a new one there", a.paths.Database)
		}
	}
	lock, err := storage.AcquireLock(a.paths.Database)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if mkErr := os.MkdirAll(filepath.Dir(a.paths.Database), 0o700); mkErr == nil {
				lock, err = storage.AcquireLock(a.paths.Database)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	db, err := storage.Open(ctx, storage.Options{
		Path:        a.paths.Database,
		Synchronous: a.cfg.Storage.Synchronous,
		BusyTimeout: a.cfg.Storage.BusyTimeout.D(),
		ReadConns:   a.cfg.Storage.ReadConns,

		CheckInBackground: a.checkLater,
	})
	if err != nil {
		lock.Release()
		return nil, err
	}
	st, err := a.serveStore(ctx, db)
	if err != nil {
		lock.Release()
		return nil, err
	}
	st.lock = lock
	return st, nil
}

// serveStore builds the app on an open db; on an error it closes db.
func (a *app) serveStore(ctx context.Context, db *storage.DB) (*store, error) {
	emb, err := embedding.New(a.cfg.Embedding)
	if err != nil {
		db.Close()
		return nil, err
	}
	rr, err := rerank.New(*a.cfg)
	if err != nil {
		db.Close()
		return nil, err
	}
	ap := cairn.New(db, *a.cfg, cairn.Options{Logger: a.log, Embedder: emb, Reranker: rr})
	a.migrateProjects(ctx, ap.Hooks)
	if n, err := ap.Documents.RedactStoredURLs(ctx); err != nil {
		a.log.Warn("document URLs: credentials left in place", "err", err)
	} else if n > 0 {
		a.log.Info("document URLs: credentials removed", "documents", n)
	}
	return &store{db: db, app: ap, svc: ap.Service}, nil
}

// holderAddr is the API address of the cairn that holds the database: the
// one in its lock file, else server.addr.
func (a *app) holderAddr(h storage.LockInfo) string {
	if h.Addr != "" {
		return h.Addr
	}
	return a.cfg.Server.Addr
}

// ingestSpool stores what `cairn hook` spooled while no cairn was running
// (memories, session transcripts); each entry is ingested once.
func (a *app) ingestSpool(ctx context.Context, hk *hooks.Hooks) {
	if n, err := shim.IngestSpool(ctx, hk, a.paths.DataDir); err != nil {
		a.log.Warn("hook spool", "ingested", n, "err", err)
	} else if n > 0 {
		a.log.Info("hook spool ingested", "entries", n)
	}
}

// cliActor is who the CLI's changes are recorded as.
var cliActor = core.Actor{Name: "cli", Type: core.ActorOperator}

// importActor is who `cairn import` records its memories as, in process.
var importActor = core.Actor{Name: "cli-import", Type: core.ActorOperator}

// cliTimeout bounds one CLI call to the API (an export streams as long as
// it needs).
const cliTimeout = 60 * time.Second

// connect loads the configuration the common flags name and opens the
// client a command reads and writes memories through: the store itself,
// or the API of the cairn that holds it. Closing the client closes the app
// too.
func connect(ctx context.Context, common *commonFlags) (client.Client, error) {
	return connectAs(ctx, common, cliActor, importActor)
}

// connectAs is connect recording writes as actor (imports as imp).
func connectAs(ctx context.Context, common *commonFlags, actor, imp core.Actor) (client.Client, error) {
	a, err := loadApp(common)
	if err != nil {
		return nil, err
	}
	c, err := a.openClient(ctx, actor, imp)
	if err != nil {
		a.close()
		return nil, err
	}
	return appClient{c, a}, nil
}

// appClient is a client that owns its app.
type appClient struct {
	client.Client
	a *app
}

// ProjectCounts implements client.ProjectCounter (both clients do).
func (c appClient) ProjectCounts(ctx context.Context, f core.MemoryFilter) (map[string]int, error) {
	return c.Client.(client.ProjectCounter).ProjectCounts(ctx, f)
}

// ImportSignet implements client.SignetImporter (both clients do).
func (c appClient) ImportSignet(ctx context.Context, path string, opt transfer.SignetOptions) (*transfer.SignetReport, error) {
	return c.Client.(client.SignetImporter).ImportSignet(ctx, path, opt)
}

func (c appClient) Close() error {
	err := c.Client.Close()
	c.a.close()
	return err
}

// openClient opens the store, or connects to the process holding it.
func (a *app) openClient(ctx context.Context, actor, imp core.Actor) (client.Client, error) {
	st, err := a.openStore(ctx)
	if err == nil {
		return client.Local(st.app, client.LocalOptions{Actor: actor, ImportActor: imp, Close: st.Close}), nil
	}
	var le *storage.LockedError
	if !errors.As(err, &le) {
		return nil, err
	}
	return client.HTTP(a.holderAddr(le.Holder), client.Options{Actor: actor, Timeout: cliTimeout, PID: le.Holder.PID}), nil
}
