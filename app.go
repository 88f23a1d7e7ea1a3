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

	"github.com/cairnmem/cairn/core/httpapi"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/embedding"
)

// commonFlags are accepted by every command.
type commonFlags struct {
	home, config, db, addr string
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.home, "home", "", "folder for config, data and logs (like CAIRN_HOME)")
	fs.StringVar(&c.config, "config", "", "config file (default: config.toml in the config folder)")
	fs.StringVar(&c.db, "db", "", "database file (default: memories.db in the data folder)")
	fs.StringVar(&c.addr, "addr", "", "API address, host:port (default "+config.DefaultAddr+")")
}

// newFlagSet returns a flag set whose -h output goes to stderr and whose
// errors are returned, not fatal.
func newFlagSet(name, usage string) (*flag.FlagSet, *commonFlags) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: cairn %s\n\nflags:\n", usage)
		fs.PrintDefaults()
	}
	c := &commonFlags{}
	c.register(fs)
	return fs, c
}

// parseFlags parses args allowing flags after positional arguments
// ("cairn remember some text --tags x").
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, usageError{err.Error()}
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

var errHelp = errors.New("help requested")

// app is a loaded configuration with its paths and logger.
type app struct {
	cfg   *config.Config
	paths config.Paths
	log   *slog.Logger
	close func()
}

func loadApp(c *commonFlags) (*app, error) {
	overrides := map[string]string{}
	if c.addr != "" {
		overrides["server.addr"] = c.addr
	}
	if c.db != "" {
		abs, err := filepath.Abs(c.db)
		if err != nil {
			return nil, err
		}
		overrides["storage.path"] = abs
	}
	cfg, paths, err := config.LoadConfig(config.LoadOptions{Home: c.home, ConfigFile: c.config, Overrides: overrides})
	if err != nil {
		return nil, err
	}
	return &app{cfg: cfg, paths: paths, log: slog.New(slog.NewTextHandler(io.Discard, nil)), close: func() {}}, nil
}

// openLog sends logs to the log file, and also to stderr when echo is set.
func (a *app) openLog(echo bool) error {
	if err := os.MkdirAll(filepath.Dir(a.paths.LogFile), 0o700); err != nil {
		return fmt.Errorf("create log folder: %w", err)
	}
	f, err := os.OpenFile(a.paths.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open log file: %w", err)
	}
	var w io.Writer = f
	if echo {
		w = io.MultiWriter(f, os.Stderr)
	}
	level := slog.LevelInfo
	_ = level.UnmarshalText([]byte(a.cfg.Log.Level))
	a.log = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
	prev := a.close
	a.close = func() { prev(); f.Close() }
	return nil
}

// store is an open database owned by this process.
type store struct {
	db   *storage.DB
	lock *storage.Lock
	svc  *core.Service
}

func (s *store) Close() error {
	err := s.db.Close()
	s.lock.Release()
	return err
}

// openStore takes the database lock and opens the store. If another cairn
// holds it, the error is a *storage.LockedError.
func (a *app) openStore(ctx context.Context) (*store, error) {
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
	})
	if err != nil {
		lock.Release()
		return nil, err
	}
	emb, err := embedding.New(a.cfg.Embedding)
	if err != nil {
		db.Close()
		lock.Release()
		return nil, err
	}
	svc := core.NewService(db, *a.cfg, core.ServiceOptions{Logger: a.log, Embedder: emb})
	a.migrateProjects(ctx, svc)
	return &store{db: db, lock: lock, svc: svc}, nil
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
func (a *app) ingestSpool(ctx context.Context, svc *core.Service) {
	if n, err := httpapi.IngestSpool(ctx, svc, a.paths.DataDir); err != nil {
		a.log.Warn("hook spool", "ingested", n, "err", err)
	} else if n > 0 {
		a.log.Info("hook spool ingested", "entries", n)
	}
}
