package recall_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/graph"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/pane"
)

func wantScreen(t *testing.T, h *shelltest.Harness, wants ...string) string {
	t.Helper()
	s := h.Screen()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Fatalf("missing %q:\n%s", w, s)
		}
	}
	return s
}

// At 80×24: a memory's detail lists its entities; E picks one, enter
// opens its view (relations with direction, neighbours, the memories that
// mention it); enter on a memory opens it, on a neighbour that entity;
// esc walks back the same way to the list.
func TestRecallEntitiesOpenAndWalkBack(t *testing.T) {
	t.Run("local", func(t *testing.T) { walkEntities(t, nil) })
	t.Run("http", func(t *testing.T) {
		walkEntities(t, func(ap *app.App) client.Client {
			srv := httptest.NewServer(httpapi.NewAPI(ap, "test", "127.0.0.1:0").Handler())
			t.Cleanup(srv.Close)
			return pane.Remote(strings.TrimPrefix(srv.URL, "http://"))
		})
	})
}

func walkEntities(t *testing.T, b func(*app.App) client.Client) {
	h := shelltest.New(t, shelltest.Options{Client: b})
	tuitest.GraphFixture(h.T, h.DB)
	h.SelectRow("postgres runs")
	h.Press("enter")
	wantScreen(t, h, "Entities (2)  postgres · service   staging · environment", "E entities")
	h.Press("E", "l")
	wantScreen(t, h, "enter open • ←/→ pick entity • esc back")
	h.Press("h", "enter")
	s := wantScreen(t, h, "entity · postgres · service · named by 2 memories", "Relations (2)",
		"← replaces       SQLite · service", "→ runs_in        staging · environment", "Neighbours (2)",
		"› SQLite · service · 1 memory", "Memories that mention it (2)", "fact       3h    postgres runs on port 5433")
	if strings.Index(s, "replaces") > strings.Index(s, "runs_in") {
		t.Fatalf("the most observed relation is not first:\n%s", s)
	}
	for _, line := range strings.Split(s, "\n") {
		if w := len([]rune(line)); w > 80 {
			t.Fatalf("a line of %d columns:\n%s", w, s)
		}
	}
	// The SQLite memory (the older one, last row) opens in the detail view.
	h.Press("j", "j", "j", "enter")
	wantScreen(t, h, "0000a002 · decision", "We decided to use SQLite", "Entities (3)  postgres · service   SQLite · service   WAL")
	h.Press("esc")
	if line := tuitest.SelectedLine(wantScreen(t, h, "entity · postgres")); !strings.Contains(line, "We decided to use SQLite") {
		t.Fatalf("esc does not come back to the same row: %q", line)
	}
	// A neighbour opens as an entity; esc comes back.
	h.Press("g", "enter")
	wantScreen(t, h, "entity · SQLite · service · named by 1 memory", "→ replaces       postgres · service")
	h.Press("esc")
	wantScreen(t, h, "entity · postgres · service")
	h.Press("esc")
	// Back in the memory, the entity it was opened from is still picked.
	wantScreen(t, h, "0000a001 · fact", "Entities (2)", "←/→ pick entity")
	h.Press("esc")
	wantScreen(t, h, "0000a001 · fact", "E entities")
	h.Press("esc")
	wantScreen(t, h, "6 · recent memories")
	if h.M.Pane(0).Nested() {
		t.Fatal("still nested after walking back")
	}
}

// A memory that names nothing says so, and E says there is nothing to pick.
func TestRecallEntitiesNone(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	tuitest.GraphFixture(h.T, h.DB)
	h.SelectRow("HTTP API binds")
	h.Press("enter")
	wantScreen(t, h, "Entities (0)  none: the linker found no names in it")
	h.Press("E")
	wantScreen(t, h, "this memory names no entity")
}

// entitiesFail is a client whose graph reads fail.
type entitiesFail struct{ *client.InProcess }

func (entitiesFail) MemoryEntities(context.Context, string) ([]graph.Entity, error) {
	return nil, errors.New("the graph tables are locked")
}

// When the entities cannot be read, the memory still opens and says so.
func TestRecallEntitiesUnavailable(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Client: func(ap *app.App) client.Client {
		return entitiesFail{client.Local(ap, pane.LocalOptions)}
	}})
	h.SelectRow("postgres runs")
	h.Press("enter")
	wantScreen(t, h, "0000a001 · fact", "unavailable: the graph tables are locked")
	h.Press("E")
	wantScreen(t, h, "entities: the graph tables are locked")
}

// An entity asked for and left before it answered (esc) does not open
// over the view the person went back to.
func TestRecallEntityLeftBeforeItOpens(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	tuitest.GraphFixture(h.T, h.DB)
	h.SelectRow("postgres runs")
	h.Press("enter", "E", "enter")
	wantScreen(t, h, "entity · postgres · service", "› SQLite · service")
	_, pending := h.M.Update(tuitest.KeyPress("enter")) // the SQLite neighbour, not yet loaded
	h.Press("esc")
	wantScreen(t, h, "0000a001 · fact")
	h.Run(pending)
	if s := h.Screen(); strings.Contains(s, "entity · SQLite") || !strings.Contains(s, "0000a001 · fact") {
		t.Fatalf("the late entity opened over the memory:\n%s", s)
	}
}
