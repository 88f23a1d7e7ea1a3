package recall_test

import (
	"context"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
)

// The memory detail's Attributes section opens each attribute with its
// aspect's weight (aspect feedback, core/ranker/feedback.go): 0.50 for a
// new aspect.
func TestRecallDetailShowsAspectWeight(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 120, Height: 40})
	actor := core.Actor{Name: "test", Type: core.ActorOperator}
	if _, err := h.Svc.Remember(context.Background(), core.RememberInput{Content: "staging runs Postgres 14", Project: "atlas"}, actor); err != nil {
		t.Fatal(err)
	}
	h.Press("/")
	h.TypeText("staging postgres")
	h.SelectRow("Postgres 14")
	h.Press("enter")
	wantScreen(t, h, "Attributes (1)", "0.50  staging · versions · attribute  postgres version = 14")
}
