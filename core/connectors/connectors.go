// Package connectors keeps cairn in step with outside sources
// (docs/design/pipeline.md, "Connectors"): a registry of connectors with
// their state (idle, syncing, error), a cursor and their last error, and
// the filesystem connector, which ingests a folder's text files as
// documents through the document pipeline and follows their changes.
//
// A filesystem connector reads only a folder the user listed in
// connectors.roots (or a folder inside one): every local process and, but
// for the API's guard, every web page can call the API, so no request can
// make cairn read a folder the user did not name in the configuration.
package connectors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/documents"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/connstore"
)

// ProviderFilesystem is the filesystem connector.
const ProviderFilesystem = "filesystem"

// CodeRootNotAllowed refuses a folder outside connectors.roots (HTTP 403).
const CodeRootNotAllowed = "root_not_allowed"

// Connectors is the registry of one Service; the composition root
// (core/app) builds it. A file it reads becomes a document of docs.
type Connectors struct {
	svc     *core.Service
	docs    *documents.Documents
	mu      sync.Mutex
	syncing map[string]bool // connector id → a sync runs
}

// New returns the Connectors of svc, ingesting files through docs.
func New(svc *core.Service, docs *documents.Documents) *Connectors {
	return &Connectors{svc: svc, docs: docs, syncing: map[string]bool{}}
}

// Connector is a connector as the API shows it (the API's type,
// core/wire).
type Connector = wire.Connector

// fsConfig is a filesystem connector's configuration.
type fsConfig struct {
	Root string `json:"root"`
}

func (c *Connectors) view(ctx context.Context, r *connstore.Connector) (*Connector, error) {
	files, err := connstore.ConnectorFiles(ctx, c.svc.DB().Reader(), r.ID)
	if err != nil {
		return nil, err
	}
	v := &Connector{ID: r.ID, Provider: r.Provider, DisplayName: r.DisplayName, Config: json.RawMessage(r.Config),
		Status: r.Status, LastSyncAt: r.LastSyncAt, LastError: r.LastError, LastErrorAt: r.LastErrorAt,
		Files: len(files), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.Cursor != "" {
		v.Cursor = json.RawMessage(r.Cursor)
	}
	return v, nil
}

// List returns every connector, oldest first.
func (c *Connectors) List(ctx context.Context) ([]*Connector, error) {
	rows, err := connstore.ListConnectors(ctx, c.svc.DB().Reader())
	if err != nil {
		return nil, err
	}
	out := make([]*Connector, 0, len(rows))
	for _, r := range rows {
		v, err := c.view(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// ErrNotFound is a connector id that does not exist.
var ErrNotFound = &core.Error{Code: core.CodeNotFound, Message: "Connector not found"}

// Get returns connector id.
func (c *Connectors) Get(ctx context.Context, id string) (*Connector, error) {
	r, err := connstore.GetConnector(ctx, c.svc.DB().Reader(), id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return c.view(ctx, r)
}

// CreateInput is a request for a new connector.
type CreateInput struct {
	Provider    string
	DisplayName string
	Root        string // filesystem: the folder
}

// Create registers a connector; its first sync runs with the next poll or
// on request. A filesystem connector's root must be a folder listed in
// connectors.roots, or inside one; the same folder twice is refused.
func (c *Connectors) Create(ctx context.Context, in CreateInput) (*Connector, error) {
	if err := c.svc.CheckFrozen(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Provider) != ProviderFilesystem {
		return nil, core.Invalid("provider", "provider must be %q (the one connector cairn has)", ProviderFilesystem)
	}
	if !utf8.ValidString(in.DisplayName) || len(in.DisplayName) > 200 {
		return nil, core.Invalid("display_name", "display_name must be valid UTF-8 of at most 200 bytes")
	}
	if err := text.CheckIdentifier("display_name", strings.TrimSpace(in.DisplayName)); err != nil {
		return nil, core.Invalid("display_name", "%s", err.Error())
	}
	root, e := c.allowedRoot(in.Root)
	if e != nil {
		return nil, e
	}
	existing, err := connstore.ListConnectors(ctx, c.svc.DB().Reader())
	if err != nil {
		return nil, err
	}
	for _, x := range existing {
		if x.Provider == ProviderFilesystem && rootOf(x) == root {
			return nil, &core.Error{Code: core.CodeDuplicate, Message: fmt.Sprintf("connector %s already reads %s", x.ID, root),
				Extra: map[string]any{"field": "root", "id": x.ID}}
		}
	}
	name := strings.TrimSpace(in.DisplayName)
	if name == "" {
		name = text.CleanLine(filepath.Base(root)) // a folder's name may hold what a display name may not
	}
	cfg, _ := json.Marshal(fsConfig{Root: root})
	now := c.svc.Timestamp()
	r := &connstore.Connector{ID: core.NewID(), Provider: ProviderFilesystem, DisplayName: name, Config: string(cfg),
		Status: connstore.ConnectorIdle, CreatedAt: now, UpdatedAt: now}
	if err := c.svc.DB().WriteTx(ctx, func(tx storage.Tx) error { return connstore.InsertConnector(ctx, tx, r) }); err != nil {
		return nil, err
	}
	return c.view(ctx, r)
}

func rootOf(r *connstore.Connector) string {
	var cfg fsConfig
	_ = json.Unmarshal([]byte(r.Config), &cfg)
	return cfg.Root
}

// allowedRoot checks that root is a folder inside one of connectors.roots
// (compared as cleaned absolute paths before anything on disk is looked
// at), then that, with symbolic links resolved, it still is.
func (c *Connectors) allowedRoot(root string) (string, *core.Error) {
	clean, _, err := c.allowedRootReal(root)
	return clean, err
}

// allowedRootReal is allowedRoot that also returns the folder with its
// links resolved, as it was checked (a sync opens that one).
func (c *Connectors) allowedRootReal(root string) (string, string, *core.Error) {
	root = strings.TrimSpace(root)
	if root == "" {
		return "", "", core.Invalid("root", "root is required: a folder listed in connectors.roots")
	}
	if !utf8.ValidString(root) || strings.ContainsRune(root, 0) || len(root) > 4096 {
		return "", "", core.Invalid("root", "root must be a path of valid UTF-8 without NUL, at most 4096 bytes")
	}
	root = expandHome(root)
	if !filepath.IsAbs(root) {
		return "", "", core.Invalid("root", "root must be an absolute path")
	}
	root = filepath.Clean(root)
	allowed := c.roots()
	inside := func(p string, roots []string) bool {
		for _, a := range roots {
			if p == a || strings.HasPrefix(p, a+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	notListed := &core.Error{Code: CodeRootNotAllowed, Message: fmt.Sprintf(
		"%s is not inside a folder listed in connectors.roots; cairn reads only folders its configuration names (add it to connectors.roots in the config file and restart cairn)", root),
		Extra: map[string]any{"field": "root"}}
	if !inside(root, allowed) {
		return "", "", notListed
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", "", core.Invalid("root", "root %s: %v", root, err)
	}
	var realRoots []string
	for _, a := range allowed {
		if r, err := filepath.EvalSymlinks(a); err == nil {
			realRoots = append(realRoots, r)
		}
	}
	if !inside(real, realRoots) {
		return "", "", notListed
	}
	st, err := os.Stat(real)
	if err != nil || !st.IsDir() {
		return "", "", core.Invalid("root", "root %s is not a folder", root)
	}
	return root, real, nil
}

// roots are connectors.roots, expanded and cleaned.
func (c *Connectors) roots() []string {
	var out []string
	for _, r := range c.svc.Config().Connectors.Roots {
		r = expandHome(strings.TrimSpace(r))
		if filepath.IsAbs(r) {
			out = append(out, filepath.Clean(r))
		}
	}
	return out
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[1:])
		}
	}
	return p
}

// EnsureRoots gives every folder of connectors.roots a filesystem
// connector, once. A root that cannot be read is reported, not fatal.
func (c *Connectors) EnsureRoots(ctx context.Context) []error {
	existing, err := connstore.ListConnectors(ctx, c.svc.DB().Reader())
	if err != nil {
		return []error{err}
	}
	have := map[string]bool{}
	for _, x := range existing {
		if x.Provider == ProviderFilesystem {
			have[rootOf(x)] = true
		}
	}
	var errs []error
	for _, r := range c.roots() {
		if have[r] {
			continue
		}
		if _, err := c.Create(ctx, CreateInput{Provider: ProviderFilesystem, Root: r}); err != nil {
			errs = append(errs, fmt.Errorf("connectors.roots %s: %w", r, err))
		}
	}
	return errs
}

// Delete removes a connector. With forget, the documents it ingested are
// deleted too (their memories soft-deleted, recoverable); without, they
// stay as documents of no connector.
func (c *Connectors) Delete(ctx context.Context, id string, forget bool, actor core.Actor) (int, error) {
	if err := c.svc.CheckFrozen(); err != nil {
		return 0, err
	}
	if _, err := c.Get(ctx, id); err != nil {
		return 0, err
	}
	if !c.begin(id) {
		return 0, errSyncing(id)
	}
	defer c.end(id)
	removed := 0
	if forget {
		files, err := connstore.ConnectorFiles(ctx, c.svc.DB().Reader(), id)
		if err != nil {
			return 0, err
		}
		for _, f := range files {
			n, err := c.dropDocument(ctx, f.DocumentID, "connector removed", actor)
			if err != nil {
				return removed, err
			}
			removed += n
		}
	}
	err := c.svc.DB().WriteTx(ctx, func(tx storage.Tx) error { return connstore.DeleteConnector(ctx, tx, id) })
	return removed, err
}

func errSyncing(id string) error {
	return &core.Error{Code: core.CodeMaintenanceInProgress, Message: "connector " + id + " is syncing; try again when it is done"}
}

func (c *Connectors) begin(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.syncing[id] {
		return false
	}
	c.syncing[id] = true
	return true
}

func (c *Connectors) end(id string) {
	c.mu.Lock()
	delete(c.syncing, id)
	c.mu.Unlock()
}
