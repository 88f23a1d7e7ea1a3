package connectors

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/documents"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/connstore"
)

// SyncResult says what one sync did (the API's type, core/wire).
type SyncResult = wire.SyncResult

// maxFileErrors bounds the per-file errors a sync reports.
const maxFileErrors = 20

// cursor is what a filesystem connector remembers between syncs.
type cursor struct {
	LastSync string `json:"last_sync"`
	Files    int    `json:"files"`
}

var connectorActor = core.Actor{Name: "connector", Type: core.ActorOperator}

// Sync brings connector id in step with its folder: new text files become
// documents, a changed file's document is replaced (the old chunks
// deleted, not duplicated), and a removed file's document is deleted. A
// file whose size and modification time are unchanged is not read. Files
// are read outside any write transaction; each document is written by the
// document pipeline's own transactions. One sync per connector runs at a
// time. A sync asked for (the API's, a key in the TUI) runs at full speed;
// BackgroundSync yields to requests.
func (c *Connectors) Sync(ctx context.Context, id string) (*SyncResult, error) {
	return c.sync(ctx, id, false)
}

// BackgroundSync is Sync for the poller: between files it lets requests
// in flight go first.
func (c *Connectors) BackgroundSync(ctx context.Context, id string) (*SyncResult, error) {
	return c.sync(ctx, id, true)
}

func (c *Connectors) sync(ctx context.Context, id string, background bool) (*SyncResult, error) {
	if err := c.svc.CheckFrozen(); err != nil {
		return nil, err
	}
	r, err := connstore.GetConnector(ctx, c.svc.DB().Reader(), id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if !c.begin(id) {
		return nil, errSyncing(id)
	}
	defer c.end(id)
	start := time.Now()
	if err := c.svc.DB().WriteTx(ctx, func(tx storage.Tx) error { return connstore.SetConnectorSyncing(ctx, tx, id, c.svc.Timestamp()) }); err != nil {
		return nil, err
	}
	res := &SyncResult{ConnectorID: id}
	serr := c.syncFolder(ctx, r, res, background)
	res.TookMS = time.Since(start).Milliseconds()
	cur, _ := json.Marshal(cursor{LastSync: c.svc.Timestamp(), Files: res.Seen})
	msg := ""
	if serr != nil {
		msg = serr.Error()
	}
	// The outcome is recorded even when the caller went away.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := c.svc.DB().WriteTx(fctx, func(tx storage.Tx) error {
		return connstore.FinishConnectorSync(fctx, tx, id, string(cur), msg, c.svc.Timestamp())
	}); err != nil {
		return res, errors.Join(serr, err)
	}
	return res, serr
}

// fileInfo is one text file found in the folder.
type fileInfo struct {
	rel   string // '/'-separated, relative to the root
	size  int64
	mtime string
	seen  entryInfo // as the walk saw it: the read opens only this file
}

func (c *Connectors) syncFolder(ctx context.Context, r *connstore.Connector, res *SyncResult, background bool) error {
	var cfg fsConfig
	if err := json.Unmarshal([]byte(r.Config), &cfg); err != nil || cfg.Root == "" {
		return fmt.Errorf("connector %s has no root in its config", r.ID)
	}
	// The root was allowed when the connector was made; connectors.roots
	// may have changed since.
	_, real, e := c.allowedRootReal(cfg.Root)
	if e != nil {
		return fmt.Errorf("%s", e.Message)
	}
	// Everything below is opened through this handle, never by path.
	root, _, err := openRoot(real)
	if err != nil {
		return err
	}
	defer root.close()
	found, kept, err := c.walk(ctx, root, cfg.Root, res)
	if err != nil {
		return err
	}
	if afterWalk != nil {
		afterWalk()
	}
	known, err := connstore.ConnectorFiles(ctx, c.svc.DB().Reader(), r.ID)
	if err != nil {
		return err
	}
	throttle := c.svc.Foreground().NewThrottle()
	for _, f := range found {
		if err := ctx.Err(); err != nil {
			return err
		}
		if background {
			if _, err := throttle.Wait(ctx); err != nil { // requests first
				return err
			}
		}
		prev := known[f.rel]
		delete(known, f.rel)
		if prev != nil && prev.Size == f.size && prev.MTime == f.mtime {
			res.Unchanged++
			continue
		}
		if err := c.ingestFile(ctx, r, root, f, prev, res); err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			var ce *core.Error
			if errors.As(err, &ce) && (ce.Code == core.CodeFrozen || strings.HasPrefix(ce.Code, "storage_")) {
				return err // the store, not the file
			}
			res.Skipped++
			fileError(res, f.rel, err)
		}
	}
	// What is left was ingested once and is gone from the folder now,
	// unless the walk could not look where it was.
	gone := make([]string, 0, len(known))
	for p := range known {
		if !keptBy(p, kept) {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)
	for _, p := range gone {
		if _, err := c.dropDocument(ctx, known[p].DocumentID, "file removed: "+p, connectorActor); err != nil {
			return err
		}
		if err := c.svc.DB().WriteTx(ctx, func(tx storage.Tx) error { return connstore.DeleteConnectorFile(ctx, tx, r.ID, p) }); err != nil {
			return err
		}
		res.Removed++
	}
	return nil
}

// fileError notes one file's failure in res, up to maxFileErrors.
func fileError(res *SyncResult, rel string, err error) {
	if len(res.Errors) < maxFileErrors {
		res.Errors = append(res.Errors, rel+": "+err.Error())
	}
}

// afterWalk, when set (by tests only), runs between the walk and the
// reads: the window a swapped file would use.
var afterWalk func()

// Bounds of one walk beyond connectors.max_files: past maxFolders folders
// or maxEntries directory entries the sync stops (as past max_files);
// folders deeper than maxDepth are skipped.
var (
	maxFolders = 20000
	maxEntries = 1000000
	maxDepth   = 64
)

// walk lists the text files under root, in path order: symbolic links are
// not followed, FIFOs, sockets and devices are not opened, ignored
// folders (.gitignore, and version control and dependency folders) are not
// entered, and files over connectors.max_file_bytes are skipped. More than
// connectors.max_files files, maxFolders folders or maxEntries entries is
// an error. Every folder is opened relative to its parent's handle (see
// safefs.go).
// It also returns what it kept (see walker.skip).
func (c *Connectors) walk(ctx context.Context, root *dirHandle, rootName string, res *SyncResult) ([]fileInfo, []string, error) {
	w := &walker{ctx: ctx, res: res, rootName: rootName, budget: newIgnoreBudget(),
		maxFiles: c.svc.Config().Connectors.MaxFiles, maxFileBytes: c.svc.Config().Connectors.MaxFileBytes}
	err := w.dir(root, "", &ignoreChain{rules: builtinIgnores}, 0)
	res.Seen = len(w.out)
	return w.out, w.kept, err
}

type walker struct {
	ctx          context.Context
	res          *SyncResult
	rootName     string
	budget       *ignoreBudget
	maxFiles     int
	maxFileBytes int64
	out          []fileInfo
	kept         []string // folders and files skipped on an error
	folders      int
	entries      int
}

// dir walks the open folder d at rel ("" for the root) with the ignore
// rules in force above it.
func (w *walker) dir(d *dirHandle, rel string, chain *ignoreChain, depth int) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	rules, err := readIgnoreAt(w.ctx, d, rel, w.budget)
	if err != nil {
		// A .gitignore that cannot be read whole leaves the folder
		// unread: reading without its rules could take in what the user
		// keeps out.
		w.skip(rel, orDot(rel), err)
		return nil
	}
	chain = chain.with(rules)
	names, err := d.names(maxEntries - w.entries)
	if err != nil {
		w.skip(rel, orDot(rel), err)
		return nil
	}
	sort.Strings(names)
	for _, name := range names {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		if w.entries++; w.entries > maxEntries {
			return fmt.Errorf("%s holds more than %d files and folders; the sync stopped there", w.rootName, maxEntries)
		}
		relName := name
		if rel != "" {
			relName = rel + "/" + name
		}
		if !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) {
			w.skip(relName, strconv.Quote(relName), errors.New("a name with control characters or invalid UTF-8 is not read"))
			continue
		}
		info, err := d.lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // gone since the folder was listed
		}
		if err != nil {
			w.skip(relName, relName, err)
			continue
		}
		switch info.kind {
		case kindSymlink, kindOther:
			continue // a link is never followed; a FIFO, socket or device never opened
		case kindDir:
			if chain.ignored(relName, true) {
				continue
			}
			if depth+1 > maxDepth {
				w.skip(relName, relName, errTooDeep(maxDepth))
				continue
			}
			if w.folders++; w.folders > maxFolders {
				return fmt.Errorf("%s holds more than %d folders; the sync stopped there", w.rootName, maxFolders)
			}
			sub, err := d.openDir(name, relName, info)
			if err != nil {
				w.skip(relName, relName, err)
				continue
			}
			err = w.dir(sub, relName, chain, depth+1)
			sub.close()
			if err != nil {
				return err
			}
		case kindRegular:
			if !textFile(name) || chain.ignored(relName, false) {
				continue
			}
			if info.size > w.maxFileBytes {
				w.res.Skipped++
				continue
			}
			if len(w.out) >= w.maxFiles {
				return fmt.Errorf("%s holds more than %d text files (connectors.max_files); the sync stopped there", w.rootName, w.maxFiles)
			}
			w.out = append(w.out, fileInfo{rel: relName, size: info.size, mtime: info.mtime.UTC().Format(time.RFC3339Nano), seen: info})
		}
	}
	return nil
}

// skip reports rel (shown as shown) as not read for err, and keeps what
// the store has at or under rel: a folder or file that could not be looked
// at is not gone, and its documents are not dropped.
func (w *walker) skip(rel, shown string, err error) {
	w.res.Skipped++
	fileError(w.res, shown, err)
	w.kept = append(w.kept, rel)
}

// keptBy reports whether p is at or under one of kept ("" keeps all).
func keptBy(p string, kept []string) bool {
	for _, k := range kept {
		if k == "" || p == k || strings.HasPrefix(p, k+"/") {
			return true
		}
	}
	return false
}

func orDot(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// readIgnoreAt reads the .gitignore of the open folder d (rel to the
// root), if any, within the sync's bounds. One that is not a regular file
// (a link, a FIFO) or is past the bounds is an error.
func readIgnoreAt(ctx context.Context, d *dirHandle, rel string, budget *ignoreBudget) (ignoreRules, error) {
	f, err := d.openFile(".gitignore")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf(".gitignore: %w", err)
	}
	if f.info.size > maxIgnoreBytes {
		f.close()
		return nil, &errIgnoreTooLarge{fmt.Sprintf("is larger than %d bytes", maxIgnoreBytes)}
	}
	b, err := f.readAll(ctx, maxIgnoreBytes)
	if err != nil {
		return nil, fmt.Errorf(".gitignore: %w", err)
	}
	return parseIgnoreBounded(rel, bytes.NewReader(b), budget, maxIgnoreBytes, maxIgnoreRules)
}

// ingestFile makes f a document, replacing prev's document when the file
// changed. The old document goes first, so the new chunks are not taken
// for duplicates of the old ones.
func (c *Connectors) ingestFile(ctx context.Context, r *connstore.Connector, root *dirHandle, f fileInfo, prev *connstore.ConnectorFile, res *SyncResult) error {
	content, err := readText(ctx, root, f, c.svc.Config().Connectors.MaxFileBytes)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(content)
	hash := hex.EncodeToString(sum[:])
	row := &connstore.ConnectorFile{Path: f.rel, Size: f.size, MTime: f.mtime, Hash: hash}
	if prev != nil && prev.Hash == hash { // touched, not changed
		row.DocumentID = prev.DocumentID
		res.Unchanged++
		return c.svc.DB().WriteTx(ctx, func(tx storage.Tx) error { return connstore.PutConnectorFile(ctx, tx, r.ID, row) })
	}
	if len(bytes.TrimSpace(content)) == 0 {
		return errors.New("empty file")
	}
	if prev != nil {
		if _, err := c.dropDocument(ctx, prev.DocumentID, "file changed: "+f.rel, connectorActor); err != nil {
			return err
		}
	}
	meta, _ := json.Marshal(map[string]any{"path": f.rel, "connector": r.DisplayName, "mtime": f.mtime})
	// Cleaned at ingest: no control character or escape sequence in a
	// file becomes a memory, nor in its name a title or a tag.
	doc, err := c.docs.CreateDocument(ctx, documents.DocumentInput{SourceType: "file", Content: text.Display(string(content)),
		Title: text.CleanLine(r.DisplayName + "/" + f.rel), ContentType: contentType(f.rel), ConnectorID: r.ID, Metadata: meta})
	if err != nil {
		return err
	}
	row.DocumentID = doc.ID
	if err := c.svc.DB().WriteTx(ctx, func(tx storage.Tx) error { return connstore.PutConnectorFile(ctx, tx, r.ID, row) }); err != nil {
		return err
	}
	if prev != nil {
		res.Changed++
	} else {
		res.Added++
	}
	return nil
}

// readText reads the file f beneath root, of at most limit bytes, that
// is UTF-8 text: only when it is still the regular file the walk saw, and
// never past ctx's end.
func readText(ctx context.Context, root *dirHandle, f fileInfo, limit int64) ([]byte, error) {
	rf, err := root.openBeneath(f.rel, f.seen)
	if err != nil {
		return nil, err
	}
	b, err := rf.readAll(ctx, limit)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("grew past %d bytes", limit)
	}
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return nil, errors.New("not UTF-8 text")
	}
	return b, nil
}

func contentType(rel string) string {
	switch strings.ToLower(filepath.Ext(rel)) {
	case ".md", ".markdown", ".mdx":
		return "text/markdown"
	case ".html":
		return "text/html"
	}
	return "text/plain"
}

// dropDocument deletes a document the connector made (its chunk memories
// soft-deleted, recoverable); one already gone is no error. It returns
// how many memories it removed.
func (c *Connectors) dropDocument(ctx context.Context, docID, reason string, actor core.Actor) (int, error) {
	res, err := c.docs.DeleteDocument(ctx, docID, reason, actor)
	var ce *core.Error
	if errors.As(err, &ce) && (ce.Code == core.CodeNotFound || ce.Code == core.CodeAlreadyDeleted) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return res.MemoriesRemoved, nil
}
