package httpapi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// Keyed facts: a new value of a key supersedes the old one in its
// project. The old memory leaves recall, points to its successor, is kept
// past the recover window and retention, and can be restored.
func TestKeyedFactsSupersede(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed)
	first := e.Post(t, "/api/memory/remember", map[string]any{"content": "timezone: Europe/Stockholm", "key": "timezone", "project": "atlas"}).Want(t, 200)
	old := first.Str("id")
	other := e.MustID(t, "timezone: Asia/Tokyo", "key", "timezone", "project", "webshop")

	second := e.Post(t, "/api/memory/remember", map[string]any{"content": "timezone: America/New_York", "key": "  TimeZone ", "project": "atlas"}).Want(t, 200)
	cur := second.Str("id")
	if sup, _ := second.JSON["superseded"].([]any); len(sup) != 1 || sup[0] != old {
		t.Fatalf("the answer names what it superseded: %s", second)
	}
	gone := e.Get(t, "/api/memory/"+old+"?include_deleted=true").Want(t, 200)
	evo, _ := gone.JSON["evolution"].(map[string]any)
	if !gone.Bool("is_deleted") || evo["superseded_by"] != cur {
		t.Fatalf("the old value: %s", gone)
	}
	now := e.Get(t, "/api/memory/"+cur).Want(t, 200)
	evo, _ = now.JSON["evolution"].(map[string]any)
	if evo["key"] != "timezone" || len(evo["supersedes"].([]any)) != 1 {
		t.Fatalf("the new value: %s", now)
	}
	if e.Get(t, "/api/memory/"+other).Bool("is_deleted") {
		t.Fatal("another project's value of the key was superseded")
	}
	res := e.Post(t, "/api/memory/recall", map[string]any{"query": "which timezone", "project": "atlas"}).Want(t, 200)
	if s := res.String(); strings.Contains(s, "Stockholm") || !strings.Contains(s, "New_York") {
		t.Fatalf("recall: %s", s)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND event = 'superseded'`, old); n != 1 {
		t.Fatalf("superseded history events: %d", n)
	}

	// Past the recover window and a retention sweep, it is still there and
	// comes back.
	e.Clock.Advance(400 * 24 * time.Hour)
	if _, err := e.App.Ops.RetentionSweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.Post(t, "/api/memory/"+old+"/recover", map[string]any{"reason": "we moved back"}).Want(t, 200)
	back := e.Get(t, "/api/memory/"+old).Want(t, 200)
	if evo, _ := back.JSON["evolution"].(map[string]any); evo["superseded_by"] != nil {
		t.Fatalf("a recovered memory is superseded by nothing: %s", back)
	}

	// The same value stated again reinforces it and supersedes nothing new.
	again := e.Post(t, "/api/memory/remember", map[string]any{"content": "timezone: America/New_York", "key": "timezone", "project": "atlas"}).Want(t, 200)
	if !again.Bool("deduped") || again.Str("id") != cur {
		t.Fatalf("restated: %s", again)
	}
	if sup, _ := again.JSON["superseded"].([]any); len(sup) != 1 || sup[0] != old {
		t.Fatalf("restating the current value retires the recovered old one again: %s", again)
	}
	evo, _ = e.Get(t, "/api/memory/"+cur).JSON["evolution"].(map[string]any)
	if evo["reinforced"] != float64(1) {
		t.Fatalf("reinforced: %v", evo)
	}

	e.Post(t, "/api/memory/remember", map[string]any{"content": "x", "key": strings.Repeat("k", 200)}).WantInvalid(t, "key", "at most")
	e.Post(t, "/api/memory/remember", map[string]any{"content": strings.Repeat("A long keyed fact. ", 400), "key": "k"}).WantInvalid(t, "key", "short")
}

// Confidence by source: what the writer says, else by how the memory came
// to be.
func TestConfidenceBySource(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed)
	for src, want := range map[string]float64{"": 1, "manual": 1, "inferred": 0.5, "observed": 0.7, "system": 0.9} {
		body := map[string]any{"content": "the build cache lives in /var/cache/ci for " + src + " memories"}
		if src != "" {
			body["source_type"] = src
		}
		r := e.Post(t, "/api/memory/remember", body).Want(t, 200)
		if got := r.Num("confidence"); got != want {
			t.Errorf("source %q: confidence %v, want %v", src, got, want)
		}
	}
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": "an inferred fact the writer is sure of", "source_type": "inferred", "confidence": 0.95}).Want(t, 200)
	if r.Num("confidence") != 0.95 {
		t.Fatalf("the writer's confidence wins: %s", r)
	}
}
