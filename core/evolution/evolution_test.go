package evolution_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

// Keyed facts: a new value of a key supersedes the old one in its
// project. The old memory leaves recall, points to its successor, is kept
// past the recover window and retention, and can be restored.
func TestKeyedFactsSupersede(t *testing.T) {
	e := newEnv(t)
	keyed := func(content, key, project string) *core.RememberResult {
		return remember(t, e, core.RememberInput{Content: content, Key: key, Project: project})
	}
	old := keyed("timezone: Europe/Stockholm", "timezone", "atlas").Memory.ID
	other := keyed("timezone: Asia/Tokyo", "timezone", "webshop").Memory.ID

	second := keyed("timezone: America/New_York", "  TimeZone ", "atlas")
	cur := second.Memory.ID
	if !slices.Equal(second.Superseded, []string{old}) {
		t.Fatalf("the answer names what it superseded: %+v", second)
	}
	if m := get(t, e, old); !m.IsDeleted || evolutionOf(t, e, old).SupersededBy != cur {
		t.Fatalf("the old value: %+v %+v", m, m.Evolution)
	}
	if evo := evolutionOf(t, e, cur); evo.Key != "timezone" || len(evo.Supersedes) != 1 {
		t.Fatalf("the new value: %+v", evo)
	}
	if gone(t, e, other) {
		t.Fatal("another project's value of the key was superseded")
	}
	res := recall(t, e, core.RecallInput{Query: "which timezone", Filter: storage.MemoryFilter{Project: "atlas"}})
	if anyContent(res, func(c string) bool { return strings.Contains(c, "Stockholm") }) ||
		!anyContent(res, func(c string) bool { return strings.Contains(c, "New_York") }) {
		t.Fatalf("recall: %q", contents(res))
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND event = 'superseded'`, old); n != 1 {
		t.Fatalf("superseded history events: %d", n)
	}

	// Past the recover window and a retention sweep, it is still there and
	// comes back.
	e.Clock.Advance(400 * 24 * time.Hour)
	if _, err := e.App.Ops.RetentionSweep(ctx); err != nil {
		t.Fatal(err)
	}
	recoverMemory(t, e, old, "we moved back")
	if back := get(t, e, old); back.IsDeleted || evolutionOf(t, e, old).SupersededBy != "" {
		t.Fatalf("a recovered memory is superseded by nothing: %+v %+v", back, back.Evolution)
	}

	// The same value stated again reinforces it and supersedes nothing new.
	again := keyed("timezone: America/New_York", "timezone", "atlas")
	if !again.Deduped || again.Memory.ID != cur {
		t.Fatalf("restated: %+v", again)
	}
	if !slices.Equal(again.Superseded, []string{old}) {
		t.Fatalf("restating the current value retires the recovered old one again: %+v", again)
	}
	if evo := evolutionOf(t, e, cur); evo.Reinforced != 1 {
		t.Fatalf("reinforced: %+v", evo)
	}

	_, err := e.Svc.Remember(ctx, core.RememberInput{Content: "x", Key: strings.Repeat("k", 200)}, api)
	wantInvalid(t, err, "key", "at most")
	_, err = e.Svc.Remember(ctx, core.RememberInput{Content: strings.Repeat("A long keyed fact. ", 400), Key: "k"}, api)
	wantInvalid(t, err, "key", "short")
}

// Confidence by source: what the writer says, else by how the memory came
// to be.
func TestConfidenceBySource(t *testing.T) {
	e := newEnv(t)
	for src, want := range map[string]float64{"": 1, "manual": 1, "inferred": 0.5, "observed": 0.7, "system": 0.9} {
		r := remember(t, e, core.RememberInput{Content: "the build cache lives in /var/cache/ci for " + src + " memories", SourceType: src})
		if got := r.Memory.Confidence; got != want {
			t.Errorf("source %q: confidence %v, want %v", src, got, want)
		}
	}
	sure := 0.95
	r := remember(t, e, core.RememberInput{Content: "an inferred fact the writer is sure of", SourceType: "inferred", Confidence: &sure})
	if r.Memory.Confidence != 0.95 {
		t.Fatalf("the writer's confidence wins: %+v", r.Memory)
	}
}
