package connectors

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/documents"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/storage"
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
	r, err := storage.GetConnector(ctx, c.svc.DB().Reader(), id)
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
	if err := c.svc.DB().WriteTx(ctx, func(tx *storage.Tx) error { return storage.SetConnectorSyncing(ctx, tx, id, c.svc.Timestamp()) }); err != nil {
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
	if err := c.svc.DB().WriteTx(fctx, func(tx *storage.Tx) error {
		return storage.FinishConnectorSync(fctx, tx, id, string(cur), msg, c.svc.Timestamp())
	}); err != nil {
		return res, errors.Join(serr, err)
	}
	return res, serr
}

// fileInfo is one text file found in the folder.
type fileInfo struct {
	rel   string // '/'-separated, relative to the root
	abs   string
	size  int64
	mtime string
}

func (c *Connectors) syncFolder(ctx context.Context, r *storage.Connector, res *SyncResult, background bool) error {
	var cfg fsConfig
	if err := json.Unmarshal([]byte(r.Config), &cfg); err != nil || cfg.Root == "" {
		return fmt.Errorf("connector %s has no root in its config", r.ID)
	}
	// The root was allowed when the connector was made; connectors.roots
	// may have changed since.
	if _, e := c.allowedRoot(cfg.Root); e != nil {
		return fmt.Errorf("%s", e.Message)
	}
	found, err := c.walk(ctx, cfg.Root, res)
	if err != nil {
		return err
	}
	known, err := storage.ConnectorFiles(ctx, c.svc.DB().Reader(), r.ID)
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
		if err := c.ingestFile(ctx, r, f, prev, res); err != nil {
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
	// What is left was ingested once and is gone from the folder now.
	gone := make([]string, 0, len(known))
	for p := range known {
		gone = append(gone, p)
	}
	sort.Strings(gone)
	for _, p := range gone {
		if _, err := c.dropDocument(ctx, known[p].DocumentID, "file removed: "+p, connectorActor); err != nil {
			return err
		}
		if err := c.svc.DB().WriteTx(ctx, func(tx *storage.Tx) error { return storage.DeleteConnectorFile(ctx, tx, r.ID, p) }); err != nil {
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

// walk lists the text files under root, in path order: symbolic links are
// not followed, ignored folders (.gitignore, and version control and
// dependency folders) are not entered, and files over
// connectors.max_file_bytes are skipped. More than connectors.max_files
// files is an error.
func (c *Connectors) walk(ctx context.Context, root string, res *SyncResult) ([]fileInfo, error) {
	cc := c.svc.Config().Connectors
	rules := map[string]ignoreRules{"": builtinIgnores} // folder → rules in force there
	var out []fileInfo
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			if rel == "." {
				return err
			}
			res.Skipped++
			fileError(res, rel, err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if rel == "." {
			rules[""] = append(rules[""], readIgnore(p, "")...)
			return nil
		}
		parent := pathDir(rel)
		inForce := rules[parent]
		if d.Type()&fs.ModeSymlink != 0 {
			return nil // never followed: it could lead out of the root
		}
		if d.IsDir() {
			if inForce.ignored(rel, true) {
				return fs.SkipDir
			}
			rules[rel] = append(append(ignoreRules{}, inForce...), readIgnore(p, rel)...)
			return nil
		}
		if !d.Type().IsRegular() || !textFile(d.Name()) || inForce.ignored(rel, false) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			res.Skipped++
			fileError(res, rel, err)
			return nil
		}
		if info.Size() > cc.MaxFileBytes {
			res.Skipped++
			return nil
		}
		if len(out) >= cc.MaxFiles {
			return fmt.Errorf("%s holds more than %d text files (connectors.max_files); the sync stopped there", root, cc.MaxFiles)
		}
		out = append(out, fileInfo{rel: rel, abs: p, size: info.Size(), mtime: info.ModTime().UTC().Format(time.RFC3339Nano)})
		return nil
	})
	res.Seen = len(out)
	return out, err
}

func pathDir(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// readIgnore reads the .gitignore of folder dir (rel to the root), if any.
func readIgnore(dir, rel string) ignoreRules {
	f, err := os.Open(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return nil
	}
	defer f.Close()
	return parseIgnore(rel, f)
}

// ingestFile makes f a document, replacing prev's document when the file
// changed. The old document goes first, so the new chunks are not taken
// for duplicates of the old ones.
func (c *Connectors) ingestFile(ctx context.Context, r *storage.Connector, f fileInfo, prev *storage.ConnectorFile, res *SyncResult) error {
	content, err := readText(f.abs, c.svc.Config().Connectors.MaxFileBytes)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(content)
	hash := hex.EncodeToString(sum[:])
	row := &storage.ConnectorFile{Path: f.rel, Size: f.size, MTime: f.mtime, Hash: hash}
	if prev != nil && prev.Hash == hash { // touched, not changed
		row.DocumentID = prev.DocumentID
		res.Unchanged++
		return c.svc.DB().WriteTx(ctx, func(tx *storage.Tx) error { return storage.PutConnectorFile(ctx, tx, r.ID, row) })
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
	doc, err := c.docs.CreateDocument(ctx, documents.DocumentInput{SourceType: "file", Content: string(content),
		Title: r.DisplayName + "/" + f.rel, ContentType: contentType(f.rel), ConnectorID: r.ID, Metadata: meta})
	if err != nil {
		return err
	}
	row.DocumentID = doc.ID
	if err := c.svc.DB().WriteTx(ctx, func(tx *storage.Tx) error { return storage.PutConnectorFile(ctx, tx, r.ID, row) }); err != nil {
		return err
	}
	if prev != nil {
		res.Changed++
	} else {
		res.Added++
	}
	return nil
}

// readText reads a file of at most limit bytes that is UTF-8 text.
func readText(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
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
