package connectors_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/connectors"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/storage/connstore"
	"github.com/cairnmem/cairn/workers"
)

func write(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ingest runs the document worker until the queue is empty.
func ingest(t testing.TB, ap *app.App) {
	t.Helper()
	w := &workers.DocumentWorker{Svc: ap.Service, Jobs: ap.Jobs, Docs: ap.Documents}
	for {
		found, err := w.Step(context.Background(), "test")
		if err != nil {
			t.Fatal(err)
		}
		if !found {
			return
		}
	}
}

func recallTop(t *testing.T, svc *core.Service, q string) []string {
	t.Helper()
	res, err := svc.Recall(context.Background(), core.RecallInput{Query: q, Limit: 5, Mode: core.ModeKeyword})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Results {
		out = append(out, h.Content)
	}
	return out
}

func newApp(t *testing.T, roots ...string) *app.App {
	return apitest.NewApp(t, nil, func(c *config.Config) { c.Connectors.Roots = roots })
}

func TestFilesystemConnectorFollowsTheFolder(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	outside := t.TempDir()
	write(t, root, "runbooks/deploy.md", "# Deploy\n\nThe payments service deploys with `make ship` from the release branch.")
	write(t, root, "notes.txt", "The staging kettle lives next to the blue rack.")
	write(t, root, ".gitignore", "drafts/\n*.log\n")
	write(t, root, "drafts/idea.md", "A draft that must not be read: zebra migration.")
	write(t, root, "debug.log", "log line about zebra")
	write(t, root, "node_modules/pkg/README.md", "zebra dependency readme")
	write(t, root, "image.png", "\x89PNG binary")
	write(t, root, "bin.md", "text with a \x00 NUL byte, zebra")
	write(t, root, "huge.md", strings.Repeat("zebra ", 400))
	write(t, outside, "secret.md", "zebra secret outside the root")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	ap := apitest.NewApp(t, nil, func(c *config.Config) {
		c.Connectors.Roots = []string{root}
		c.Connectors.MaxFileBytes = 1000
	})
	svc, reg := ap.Service, ap.Connectors
	if errs := reg.EnsureRoots(ctx); len(errs) != 0 {
		t.Fatal(errs)
	}
	list, _ := reg.List(ctx)
	if len(list) != 1 || list[0].DisplayName != filepath.Base(root) {
		t.Fatalf("one connector per root: %+v", list)
	}
	id := list[0].ID
	if errs := reg.EnsureRoots(ctx); len(errs) != 0 {
		t.Fatal(errs)
	}
	if list, _ := reg.List(ctx); len(list) != 1 {
		t.Fatalf("EnsureRoots twice: %d connectors", len(list))
	}

	res, err := reg.Sync(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 2 || res.Seen != 3 || res.Skipped != 2 { // deploy.md, notes.txt added; bin.md not text; huge.md too large
		t.Fatalf("first sync: %+v", res)
	}
	ingest(t, ap)
	if top := recallTop(t, svc, "payments deploy make ship"); len(top) == 0 || !strings.Contains(top[0], "make ship") {
		t.Fatalf("recall after the first sync: %v", top)
	}
	if top := recallTop(t, svc, "zebra"); len(top) != 0 {
		t.Fatalf("ignored, binary, large and linked files were read: %v", top)
	}

	again, err := reg.Sync(ctx, id)
	if err != nil || again.Unchanged != 2 || again.Added+again.Changed+again.Removed != 0 {
		t.Fatalf("nothing changed: %+v %v", again, err)
	}

	// A changed file replaces its document; a removed one takes its
	// document with it; a touched one is not re-ingested.
	write(t, root, "runbooks/deploy.md", "# Deploy\n\nThe payments service deploys with `make release` now, from main.")
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(filepath.Join(root, "runbooks/deploy.md"), later, later)
	os.Remove(filepath.Join(root, "notes.txt"))
	os.Chtimes(filepath.Join(root, ".gitignore"), later, later)
	res, err = reg.Sync(ctx, id)
	if err != nil || res.Changed != 1 || res.Removed != 1 || res.Added != 0 {
		t.Fatalf("incremental sync: %+v %v", res, err)
	}
	ingest(t, ap)
	top := recallTop(t, svc, "payments service deploys")
	if len(top) != 1 || !strings.Contains(top[0], "make release") {
		t.Fatalf("the changed file is there once, new content only: %v", top)
	}
	if top := recallTop(t, svc, "staging kettle blue rack"); len(top) != 0 {
		t.Fatalf("the removed file's memory stays: %v", top)
	}
	c, _ := reg.Get(ctx, id)
	if c.Status != connstore.ConnectorIdle || c.Files != 1 || c.LastSyncAt == "" || len(c.Cursor) == 0 {
		t.Fatalf("connector after syncs: %+v", c)
	}

	n, err := reg.Delete(ctx, id, true, core.Actor{Name: "t", Type: core.ActorOperator})
	if err != nil || n == 0 {
		t.Fatalf("delete with forget: %d %v", n, err)
	}
	if top := recallTop(t, svc, "payments service deploys"); len(top) != 0 {
		t.Fatalf("a removed connector's documents stay: %v", top)
	}
}

func TestFilesystemConnectorReadsOnlyListedRoots(t *testing.T) {
	ctx := context.Background()
	allowed := t.TempDir()
	other := t.TempDir()
	os.MkdirAll(filepath.Join(allowed, "sub"), 0o755)
	if err := os.Symlink(other, filepath.Join(allowed, "escape")); err != nil {
		t.Fatal(err)
	}
	reg := newApp(t, allowed).Connectors
	for _, root := range []string{other, "/etc", allowed + "/../" + filepath.Base(other), filepath.Join(allowed, "escape")} {
		_, err := reg.Create(ctx, connectors.CreateInput{Provider: "filesystem", Root: root})
		if ce, ok := err.(*core.Error); !ok || ce.Code != connectors.CodeRootNotAllowed {
			t.Errorf("root %s: %v", root, err)
		}
	}
	for in, field := range map[connectors.CreateInput]string{
		{Provider: "gdrive", Root: allowed}:                                           "provider",
		{Provider: "filesystem"}:                                                      "root",
		{Provider: "filesystem", Root: "relative"}:                                    "root",
		{Provider: "filesystem", Root: allowed, DisplayName: "notes\x1b]0;pwned\x07"}: "display_name",
		{Provider: "filesystem", Root: allowed, DisplayName: "\u202enotes"}:           "display_name",
	} {
		_, err := reg.Create(ctx, in)
		if ce, ok := err.(*core.Error); !ok || ce.Extra["field"] != field {
			t.Errorf("%+v: %v", in, err)
		}
	}
	c, err := reg.Create(ctx, connectors.CreateInput{Provider: "filesystem", Root: filepath.Join(allowed, "sub"), DisplayName: "Sub notes"})
	if err != nil || c.DisplayName != "Sub notes" {
		t.Fatalf("a folder inside a root: %+v %v", c, err)
	}
	if _, err := reg.Create(ctx, connectors.CreateInput{Provider: "filesystem", Root: filepath.Join(allowed, "sub")}); err == nil {
		t.Fatal("the same folder twice")
	}
}
