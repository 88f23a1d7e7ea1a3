package recall_test

import (
	"context"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
	"github.com/cairnmem/cairn/tui/pane"
)

// The memory detail shows how a memory evolved: the attributes the linker
// read from it (entity, aspect, kind, attribute = value) and, for one a
// newer value replaced, the memory that superseded it; the successor
// lists what it superseded.
func TestRecallDetailShowsEvolution(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 120, Height: 40})
	ctx := context.Background()
	actor := core.Actor{Name: "test", Type: core.ActorOperator}
	remember := func(content string) *core.RememberResult {
		r, err := h.Svc.Remember(ctx, core.RememberInput{Content: content, Project: "atlas"}, actor)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	both := remember("prod runs Postgres 14, and the prod database listens on port 5432")
	remember("staging runs Postgres 14")
	newer := remember("prod runs Postgres 15")
	v16 := remember("staging runs Postgres 16")
	if len(v16.Superseded) != 1 || len(newer.Superseded) != 0 {
		t.Fatalf("superseded: %v, %v", v16.Superseded, newer.Superseded)
	}
	h.Press("/")
	h.TypeText("prod database port")
	h.SelectRow("prod database listens")
	h.Press("enter")
	wantScreen(t, h, pane.ShortID(both.Memory.ID), "Attributes (2)",
		"prod · versions · attribute  postgres version = 14 · superseded by "+pane.ShortID(newer.Memory.ID),
		"prod database · network · attribute  port = 5432")
	h.Press("esc", "/", "ctrl+u")
	h.TypeText("staging postgres")
	h.SelectRow("Postgres 16")
	h.Press("enter")
	wantScreen(t, h, "Evolution", "supersedes  "+pane.ShortID(v16.Superseded[0]), "staging · versions · attribute  postgres version = 16")
}
