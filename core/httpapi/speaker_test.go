package httpapi_test

import (
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// Speaker attribution: a question naming one speaker of a conversation
// ranks that speaker's turns above another speaker's turn that matches its
// words as well, and explain shows the factor. With the weight at 0 the
// order is the words' alone, so the test fails if the factor is lost.
func TestSpeakerNamedByTheQueryRanksFirst(t *testing.T) {
	type hit struct {
		id      string
		speaker float64
	}
	run := func(weight float64) []hit {
		e := apitest.NewEnv(t, apitest.NoPipeline, func(c *config.Config) { c.Search.SpeakerWeight = weight })
		// Both turns hold every word of the question; Caroline's, shorter,
		// ranks first by its words alone: only the speaker tells them apart.
		e.MustID(t, "Caroline: Melanie, what do you do to destress after work?", "project", "chat")
		e.MustID(t, "Melanie: Running after work helps me destress a lot these days.", "project", "chat")
		e.MustID(t, "Notes on the garden: water the roses.", "project", "chat")
		for _, f := range []string{"Caroline: The adoption agency called back today.", "Melanie: The kids loved the museum trip.",
			"Caroline: I painted a sunset last weekend.", "Melanie: We went camping by the lake.", "Caroline: My guitar needs new strings."} {
			e.MustID(t, f, "project", "chat")
		}
		res := e.Post(t, "/api/memory/recall", map[string]any{"query": "What does Melanie do to destress after work?", "project": "chat", "explain": true}).Want(t, 200)
		var out []hit
		for _, h := range res.List(t, "results") {
			ex, _ := h["explain"].(map[string]any)
			sp, _ := ex["speaker"].(float64)
			out = append(out, hit{h["content"].(string)[:8], sp})
		}
		return out
	}
	off := run(0)
	if len(off) < 2 || off[0].id != "Caroline" {
		t.Fatalf("without the factor the words rank Caroline's turn first (the test's premise): %+v", off)
	}
	on := run(0.3)
	if len(on) < 2 || on[0].id != "Melanie:" {
		t.Fatalf("the named speaker's turn is not first: %+v", on)
	}
	for _, h := range on {
		want := 1.0
		if h.id == "Caroline" {
			want = 0.7
		}
		if h.speaker != want {
			t.Fatalf("explain.speaker of %q = %v, want %v", h.id, h.speaker, want)
		}
	}
}
