package connectors_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/connectors"
	"github.com/cairnmem/cairn/core/text"
)

// outsideMarker is in every file outside the root: no document may ever
// hold it.
const outsideMarker = "quokka-outside-the-root"

// storedWith counts the documents (live or not) whose content holds s.
func storedWith(t testing.TB, svc *core.Service, s string) int {
	t.Helper()
	var n int
	if err := svc.DB().Reader().QueryRowContext(context.Background(),
		`SELECT count(*) FROM documents WHERE instr(content, ?) > 0 OR instr(title, ?) > 0`, s, s).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// syncWithin runs one sync and fails the test if it does not return
// within d (a sync blocked on a FIFO never does).
func syncWithin(t testing.TB, reg *connectors.Connectors, id string, d time.Duration) (*connectors.SyncResult, error) {
	t.Helper()
	type out struct {
		res *connectors.SyncResult
		err error
	}
	ch := make(chan out, 1)
	go func() {
		res, err := reg.Sync(context.Background(), id)
		ch <- out{res, err}
	}()
	select {
	case o := <-ch:
		return o.res, o.err
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		t.Fatalf("sync did not return within %s: it hangs\n%s", d, buf[:runtime.Stack(buf, true)])
		return nil, nil
	}
}

func mkfifo(t testing.TB, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// swapIn puts a fresh link, FIFO or file at p atomically (rename over it).
func swapIn(p string, make func(tmp string) error) error {
	tmp := fmt.Sprintf("%s.swap%d", p, time.Now().UnixNano())
	if err := make(tmp); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

func newConnector(t *testing.T, root string) (*app.App, *connectors.Connectors, string) {
	t.Helper()
	ap := newApp(t, root)
	c, err := ap.Connectors.Create(context.Background(), connectors.CreateInput{Provider: "filesystem", Root: root})
	if err != nil {
		t.Fatal(err)
	}
	return ap, ap.Connectors, c.ID
}

// The window of issue 29, made certain: between the walk and the read a
// file becomes a link out of the root, a folder on a file's path becomes
// one, or a file becomes a FIFO. None is read from outside the root, the
// sync returns, and it says why the file was skipped.
func TestConnectorReadRefusesWhatWasSwappedAfterTheWalk(t *testing.T) { swapAfterWalk(t) }

func swapAfterWalk(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		swap       func(root, outside string) error
	}{
		{"a file becomes a link out of the root", "a.md", func(root, outside string) error {
			return swapIn(filepath.Join(root, "a.md"), func(tmp string) error { return os.Symlink(filepath.Join(outside, "secret.md"), tmp) })
		}},
		{"a folder on the path becomes a link out of the root", "sub/inner.md", func(root, outside string) error {
			if err := os.RemoveAll(filepath.Join(root, "sub")); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(outside, "sub"), filepath.Join(root, "sub"))
		}},
		{"a file becomes a FIFO", "a.md", func(root, _ string) error {
			return swapIn(filepath.Join(root, "a.md"), func(tmp string) error { return syscall.Mkfifo(tmp, 0o644) })
		}},
		{"a file becomes another file", "a.md", func(root, _ string) error {
			return swapIn(filepath.Join(root, "a.md"), func(tmp string) error { return os.WriteFile(tmp, []byte("other"), 0o644) })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			write(t, outside, "secret.md", "the "+outsideMarker+" secret")
			write(t, outside, "sub/inner.md", "inner "+outsideMarker+" secret")
			write(t, root, tc.file, "a note about the blue rack")
			write(t, root, "kept.md", "a note that stays a note")
			ap, reg, id := newConnector(t, root)
			svc := ap.Service
			defer connectors.SetAfterWalk(func() { // on the sync's goroutine: no t.Fatal
				if err := tc.swap(root, outside); err != nil {
					t.Error(err)
				}
			})()
			res, err := syncWithin(t, reg, id, 20*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if n := storedWith(t, svc, outsideMarker); n != 0 {
				t.Fatalf("%d documents hold text from outside the root: %+v", n, res)
			}
			if res.Added != 1 || res.Skipped != 1 || len(res.Errors) != 1 || !strings.HasPrefix(res.Errors[0], tc.file+": ") ||
				!strings.Contains(res.Errors[0], "replaced while the sync ran") && !strings.Contains(res.Errors[0], "not a regular file") {
				t.Fatalf("want kept.md added and %s skipped with a reason: %+v", tc.file, res)
			}
		})
	}
}

// A FIFO in the root, as a text file or as a .gitignore (which the walk
// reads itself), never blocks a sync; a folder whose .gitignore is a FIFO
// is skipped, not read without its rules.
func TestConnectorFIFOsDoNotHangTheSync(t *testing.T) {
	root := t.TempDir()
	write(t, root, "notes.md", "the staging kettle lives next to the blue rack")
	write(t, root, "sub/secret.md", "a file the sub folder's ignore rules would keep out")
	write(t, root, "other/x.md", "another note")
	mkfifo(t, filepath.Join(root, "pipe.md"))
	mkfifo(t, filepath.Join(root, "sub", ".gitignore"))
	ap, reg, id := newConnector(t, root)
	svc := ap.Service
	res, err := syncWithin(t, reg, id, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 2 || storedWith(t, svc, "ignore rules would keep out") != 0 {
		t.Fatalf("want notes.md and other/x.md only: %+v", res)
	}
	if len(res.Errors) != 1 || !strings.HasPrefix(res.Errors[0], "sub: .gitignore") {
		t.Fatalf("the skipped folder is not reported: %+v", res.Errors)
	}
	// The root's own .gitignore as a FIFO: nothing is read, nothing hangs.
	mkfifo(t, filepath.Join(root, ".gitignore"))
	if res, err = syncWithin(t, reg, id, 20*time.Second); err != nil || res.Seen != 0 || len(res.Errors) != 1 {
		t.Fatalf("root .gitignore a FIFO: %+v %v", res, err)
	}
}

// The stress test of issue 29: while syncs run one after another, files
// inside the root keep turning into links to files outside it, links to
// folders outside it, and FIFOs, and back into files. Nothing outside the
// root is ever stored, and every sync returns.
func TestConnectorSwapStress(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	write(t, outside, "secret.md", "the "+outsideMarker+" secret")
	write(t, outside, "dir/inner.md", "inner "+outsideMarker+" secret")
	const files = 24
	for i := range files {
		write(t, root, fmt.Sprintf("n%02d.md", i), fmt.Sprintf("note %d about the blue rack", i))
		write(t, root, fmt.Sprintf("d%02d/inner.md", i), fmt.Sprintf("inner note %d", i))
	}
	ap, reg, id := newConnector(t, root)
	svc := ap.Service
	duration := 3 * time.Second
	if testing.Short() {
		duration = time.Second
	}
	stop := make(chan struct{})
	var swaps atomic.Int64
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				i := k % files
				file := filepath.Join(root, fmt.Sprintf("n%02d.md", i))
				dir := filepath.Join(root, fmt.Sprintf("d%02d", i))
				switch k % 4 {
				case 0:
					_ = swapIn(file, func(tmp string) error { return os.Symlink(filepath.Join(outside, "secret.md"), tmp) })
					_ = os.RemoveAll(dir)
					_ = os.Symlink(filepath.Join(outside, "dir"), dir)
				case 1:
					_ = swapIn(file, func(tmp string) error { return syscall.Mkfifo(tmp, 0o644) })
				case 2:
					_ = swapIn(file, func(tmp string) error {
						return os.WriteFile(tmp, []byte(fmt.Sprintf("note %d changed at %d", i, k)), 0o644)
					})
					_ = os.Remove(dir)
					_ = os.MkdirAll(dir, 0o755)
					_ = os.WriteFile(filepath.Join(dir, "inner.md"), []byte(fmt.Sprintf("inner note %d at %d", i, k)), 0o644)
				case 3:
					_ = swapIn(file, func(tmp string) error { return os.Symlink(filepath.Join(outside, "dir", "inner.md"), tmp) })
				}
				swaps.Add(1)
			}
		}()
	}
	syncs, added := 0, 0
	for deadline := time.Now().Add(duration); time.Now().Before(deadline); syncs++ {
		res, err := syncWithin(t, reg, id, 20*time.Second)
		if err != nil {
			t.Fatalf("sync %d: %v", syncs, err)
		}
		added += res.Added + res.Changed
	}
	close(stop)
	wg.Wait()
	if n := storedWith(t, svc, outsideMarker); n != 0 {
		t.Fatalf("%d documents hold text from outside the root", n)
	}
	if syncs < 3 || swaps.Load() < 100 || added == 0 {
		t.Fatalf("too little happened to prove anything: %d syncs, %d swaps, %d files read", syncs, swaps.Load(), added)
	}
	t.Logf("%d syncs, %d swaps, %d files read, nothing from outside the root", syncs, swaps.Load(), added)
}

// A long .gitignore at the root costs its rules once, not once per folder
// (10,000 lines and 1,500 folders once cost 420 MB), and past the bounds a
// .gitignore's folder is skipped; so are folders past the folder bound.
func TestConnectorIgnoreRulesAndFoldersAreBounded(t *testing.T) {
	root := t.TempDir()
	var gi strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&gi, "generated/output-%05d.bin\n", i)
	}
	write(t, root, ".gitignore", gi.String())
	for i := range 1500 {
		if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("f%04d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, root, "f0001/note.md", "the one note")
	_, reg, id := newConnector(t, root)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := syncWithin(t, reg, id, 60*time.Second)
	runtime.ReadMemStats(&after)
	if err != nil || res.Added != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("a sync of 1,500 folders under a 10,000-line .gitignore allocated %d MB", alloc>>20)
	}

	// Bounds made small: past the folder bound the sync stops; a
	// .gitignore past its rule bound leaves its folder unread.
	must(t, os.Remove(filepath.Join(root, ".gitignore")))
	defer connectors.SetWalkBounds(1400, 64, 100)()
	res, err = syncWithin(t, reg, id, 60*time.Second)
	if err == nil || !strings.Contains(err.Error(), "more than 1400 folders") {
		t.Fatalf("past the folder bound: %+v %v", res, err)
	}
	defer connectors.SetWalkBounds(2000, 64, 100)()
	write(t, root, "f0002/.gitignore", strings.Repeat("x*y\n", 101))
	write(t, root, "f0002/kept-out.md", "must not be read")
	res, err = syncWithin(t, reg, id, 60*time.Second)
	if err != nil || res.Added != 0 || len(res.Errors) != 1 || !strings.Contains(res.Errors[0], "f0002: .gitignore holds more than 100 rules") {
		t.Fatalf("past the rule bound: %+v %v", res, err)
	}
}

// Deep folders are skipped, not walked without end.
func TestConnectorDepthIsBounded(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b", "c", "d")
	write(t, deep, "deep.md", "deep note")
	write(t, root, "a/top.md", "top note")
	_, reg, id := newConnector(t, root)
	defer connectors.SetWalkBounds(20000, 2, 10000)()
	res, err := syncWithin(t, reg, id, 20*time.Second)
	if err != nil || res.Added != 1 || len(res.Errors) != 1 || !strings.Contains(res.Errors[0], "a/b/c: folders nested deeper than 2") {
		t.Fatalf("%+v %v", res, err)
	}
}

// A connector's files are cleaned at ingest like a web page: no escape
// sequence in a file becomes a memory, and a file name with control
// characters is not read.
func TestConnectorCleansFilesAtIngest(t *testing.T) {
	root := t.TempDir()
	write(t, root, "runbook.md", "Restart the \x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07payments worker \x1b[2J\x1b[31mnow\x1b[0m.")
	write(t, root, "title\x1b]0;pwned\x07.md", "a file whose name is an attack")
	write(t, root, "rtl\u202etxt.md", "a name with a bidi override")
	ap, reg, id := newConnector(t, root)
	svc := ap.Service
	res, err := syncWithin(t, reg, id, 20*time.Second)
	if err != nil || res.Added != 2 || len(res.Errors) != 1 || !strings.Contains(res.Errors[0], `\x1b]0;pwned\a.md"`) {
		t.Fatalf("%+v %v", res, err)
	}
	ingest(t, ap)
	top := recallTop(t, svc, "payments worker")
	if len(top) != 1 || top[0] != "Restart the payments worker now." {
		t.Fatalf("ingested: %q", top)
	}
	var titles []string
	rows, err := svc.DB().Reader().QueryContext(context.Background(), `SELECT title FROM documents`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		must(t, rows.Scan(&s))
		titles = append(titles, s)
		if err := text.CheckIdentifier("title", s); err != nil {
			t.Errorf("title %q: %v", s, err)
		}
	}
	if len(titles) != 2 {
		t.Fatalf("titles: %q", titles)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// What a sync cannot look at is not gone: when a folder's .gitignore turns
// into a FIFO (or the root's does), the documents of the files under it
// stay until the folder can be read again.
func TestConnectorKeepsWhatItCannotLookAt(t *testing.T) {
	root := t.TempDir()
	write(t, root, "top.md", "the top note")
	write(t, root, "sub/a.md", "a note in sub")
	_, reg, id := newConnector(t, root)
	if res, err := syncWithin(t, reg, id, 20*time.Second); err != nil || res.Added != 2 {
		t.Fatalf("first sync: %+v %v", res, err)
	}
	mkfifo(t, filepath.Join(root, "sub", ".gitignore"))
	if res, err := syncWithin(t, reg, id, 20*time.Second); err != nil || res.Removed != 0 || res.Unchanged != 1 || len(res.Errors) != 1 {
		t.Fatalf("sub unreadable: %+v %v", res, err)
	}
	mkfifo(t, filepath.Join(root, ".gitignore"))
	if res, err := syncWithin(t, reg, id, 20*time.Second); err != nil || res.Removed != 0 || len(res.Errors) != 1 {
		t.Fatalf("root unreadable: %+v %v", res, err)
	}
	must(t, os.Remove(filepath.Join(root, ".gitignore")))
	must(t, os.Remove(filepath.Join(root, "sub", ".gitignore")))
	if res, err := syncWithin(t, reg, id, 20*time.Second); err != nil || res.Unchanged != 2 || res.Removed+res.Added != 0 {
		t.Fatalf("readable again: %+v %v", res, err)
	}
	must(t, os.RemoveAll(filepath.Join(root, "sub")))
	if res, err := syncWithin(t, reg, id, 20*time.Second); err != nil || res.Removed != 1 {
		t.Fatalf("a folder really gone: %+v %v", res, err)
	}
}
