package jobs_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/connectors"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/connstore"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/pane"
)

// The connectors view at 80×24: c shows every connector with its state,
// s syncs the selected one and says what the sync did (or why it
// failed), esc goes back to the queue.
func TestJobsConnectorsShowAndSync(t *testing.T) {
	t.Run("local", func(t *testing.T) { connectorsShowAndSync(t, nil) })
	t.Run("http", func(t *testing.T) {
		connectorsShowAndSync(t, func(ap *app.App) client.Client {
			srv := httptest.NewServer(httpapi.NewAPI(ap, "test", "127.0.0.1:0").Handler())
			t.Cleanup(srv.Close)
			return pane.Remote(strings.TrimPrefix(srv.URL, "http://"))
		})
	})
}

func connectorsShowAndSync(t *testing.T, b func(*app.App) client.Client) {
	notes := t.TempDir()
	for name, text := range map[string]string{"oncall.md": "The on-call rota hands over every Monday.", "backup.md": "Backups run nightly at 02:00."} {
		if err := os.WriteFile(filepath.Join(notes, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := shelltest.New(t, shelltest.Options{Client: b, Config: func(c *config.Config) { c.Connectors.Roots = []string{notes} }})
	tuitest.ConnectorFixture(h.T, h.DB)
	if _, err := h.App.Connectors.Create(context.Background(), connectors.CreateInput{Provider: connectors.ProviderFilesystem, DisplayName: "folder", Root: notes}); err != nil {
		t.Fatal(err)
	}
	h.Press("3")
	if s := h.Screen(); !strings.Contains(s, "c connectors") {
		t.Fatalf("the hint line does not name the connectors key:\n%s", s)
	}
	h.Press("c")
	s := h.Screen()
	for _, want := range []string{"Connectors (3)", "notes            idle     0      5m ago    /srv/notes", "wiki             error    0      3h ago", "folder           idle     0      never",
		"s sync connector", "c/esc back to the queue"} {
		if !strings.Contains(s, want) {
			t.Fatalf("missing %q:\n%s", want, s)
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if w := len([]rune(line)); w > 80 {
			t.Fatalf("a line of %d columns:\n%s", w, s)
		}
	}
	// The selected connector's last error shows under the list.
	h.SelectRow("wiki")
	if s := h.Screen(); !strings.Contains(s, "error   walk /srv/team/wiki: open /srv/team/wiki: permission denied") {
		t.Fatalf("the last error is not shown:\n%s", s)
	}
	// Its folder is not in connectors.roots: the sync fails and says why.
	h.Press("s")
	if f := jobsPane(h).Flash(); !f.Err || !strings.Contains(f.Text, "sync wiki") || !strings.Contains(f.Text, "connectors.roots") {
		t.Fatalf("a failed sync: %+v\n%s", f, h.Screen())
	}
	h.SelectRow("folder")
	h.Press("s")
	if f := jobsPane(h).Flash(); f.Err || f.Text != "synced folder: 2 added, 0 changed, 0 removed (2 files seen)" {
		t.Fatalf("sync: %+v\n%s", f, h.Screen())
	}
	if s := h.Screen(); !strings.Contains(s, "› folder           idle     2      now") || !strings.Contains(s, "synced folder: 2 added") {
		t.Fatalf("the synced connector's row:\n%s", s)
	}
	// A file changes and another goes: the next sync says so.
	if err := os.WriteFile(filepath.Join(notes, "oncall.md"), []byte("The on-call rota hands over every Tuesday."), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(notes, "backup.md")); err != nil {
		t.Fatal(err)
	}
	h.Press("s")
	if f := jobsPane(h).Flash(); f.Err || !strings.HasPrefix(f.Text, "synced folder: 0 added, 1 changed, 1 removed") {
		t.Fatalf("second sync: %+v", f)
	}
	list, err := h.App.Connectors.List(context.Background())
	if err != nil || list[2].Files != 1 || list[2].Status != connstore.ConnectorIdle {
		t.Fatalf("stored: %+v %v", list, err)
	}
	h.Press("esc")
	if jobsPane(h).ShowingConnectors() || !strings.Contains(h.Screen(), "all jobs, live first") {
		t.Fatalf("esc does not go back to the queue:\n%s", h.Screen())
	}
}

// While shown, the connectors view re-reads their state with the queue's
// poll: a sync started elsewhere shows without a keypress.
func TestJobsConnectorsPoll(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	tuitest.ConnectorFixture(h.T, h.DB)
	h.Press("3", "c")
	if err := h.DB.WriteTx(context.Background(), func(tx storage.Tx) error {
		return connstore.SetConnectorSyncing(context.Background(), tx, tuitest.ConnNotes, storage.FormatTime(tuitest.FixedNow))
	}); err != nil {
		t.Fatal(err)
	}
	if !h.PumpUntil(3e9, func() bool { return strings.Contains(h.Screen(), "notes            syncing") }) {
		t.Fatalf("the syncing state never showed:\n%s", h.Screen())
	}
}

// The ? help lists the connectors keys, within 80 columns.
func TestJobsHelpNamesConnectorKeys(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	h.Press("3", "?")
	s := h.Screen()
	for _, want := range []string{"c     connectors", "s     sync connector", "c/esc back to the queue"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the help lacks %q:\n%s", want, s)
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if w := len([]rune(line)); w > 80 {
			t.Fatalf("a line of %d columns:\n%s", w, s)
		}
	}
}
