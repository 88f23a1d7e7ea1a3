package ranker_test

import (
	"math"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

const feedbackProject = "/work/feedback"

// aspectWeightOf is the weight GET /api/memory/{id} shows with the
// memory's first attribute.
func aspectWeightOf(t *testing.T, e *apitest.Env, id string) float64 {
	t.Helper()
	evo, _ := e.Get(t, "/api/memory/"+id+"?include_deleted=true").Want(t, 200).JSON["evolution"].(map[string]any)
	attrs, _ := evo["attributes"].([]any)
	if len(attrs) == 0 {
		t.Fatalf("memory %s has no attribute", id)
	}
	w, ok := attrs[0].(map[string]any)["aspect_weight"].(float64)
	if !ok {
		t.Fatalf("no aspect_weight on %v", attrs[0])
	}
	return w
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// feedbackSession runs one session through the hooks: session start, one
// prompt, session end with transcript; the prompt and the transcript are
// what refers (or not) to the injected memories.
func feedbackSession(t *testing.T, e *apitest.Env, key, prompt, transcript string) *apitest.Resp {
	t.Helper()
	hook := func(ev string, body map[string]any) *apitest.Resp {
		body["harness"], body["session_id"], body["cwd"] = "claude-code", key, feedbackProject
		return e.Post(t, "/api/hooks/"+ev, body).Want(t, 200)
	}
	start := hook("session-start", map[string]any{"source": "startup"})
	hook("user-prompt-submit", map[string]any{"prompt": prompt})
	hook("session-end", map[string]any{"transcript": transcript})
	return start
}

// Aspect feedback (docs/design/pipeline.md, "Aspect feedback"): a session
// that uses a memory raises the weight of its aspect, by weight_delta per
// confirmed memory, up to max_weight; every decay_interval_sessions scored
// sessions, aspects not confirmed for stale_days lose decay_rate, down to
// min_weight, while a freshly confirmed one keeps its weight. The weights
// show on the memory (GET /api/memory/{id}) and on the session (GET
// /api/sessions/{key}).
func TestAspectFeedbackRaisesAndDecays(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) {
		c.Feedback.DecayRate = 0.25
		c.Feedback.DecayIntervalSessions = 2
	})
	staging := e.MustID(t, "staging runs Postgres 14", "project", feedbackProject)
	prod := e.MustID(t, "the prod database listens on port 5432", "project", feedbackProject)
	if w := aspectWeightOf(t, e, staging); !near(w, 0.5) {
		t.Fatalf("a new aspect weighs 0.5: %v", w)
	}

	// Session 1 uses the staging memory, not the prod one.
	feedbackSession(t, e, "fb-1", "upgrade staging from postgres 14", "User: staging postgres 14 needs the upgrade\nAssistant: done")
	if w := aspectWeightOf(t, e, staging); !near(w, 0.52) {
		t.Fatalf("confirmed once: 0.5 + 0.02, got %v", w)
	}
	if w := aspectWeightOf(t, e, prod); !near(w, 0.5) {
		t.Fatalf("the unused aspect is unchanged: %v", w)
	}
	cont := e.Get(t, "/api/sessions/fb-1").Want(t, 200).JSON["continuity"].(map[string]any)
	aspects, _ := cont["aspects"].([]any)
	if len(aspects) != 1 {
		t.Fatalf("the session's confirmed aspects: %v", cont["aspects"])
	}
	if a := aspects[0].(map[string]any); a["entity"] != "staging" || a["aspect"] != "versions" || !near(a["weight"].(float64), 0.52) ||
		a["confirmations"] != float64(1) || a["memories"] != float64(1) {
		t.Fatalf("staging's aspect on the session: %v", a)
	}

	// Fifteen days on (stale_days 14), session 2 uses the prod memory:
	// the second scored session decays the stale staging aspect, not the
	// prod one it just confirmed.
	e.Clock.Advance(15 * 24 * time.Hour)
	feedbackSession(t, e, "fb-2", "is the prod database still on port 5432?", "User: prod database port 5432 is fine\nAssistant: ok")
	if w := aspectWeightOf(t, e, staging); !near(w, 0.27) {
		t.Fatalf("stale: 0.52 - 0.25, got %v", w)
	}
	if w := aspectWeightOf(t, e, prod); !near(w, 0.52) {
		t.Fatalf("confirmed now, not decayed: %v", w)
	}
	st := e.Get(t, "/api/pipeline/status").Want(t, 200).JSON["aspect_feedback"].(map[string]any)
	if since := st["since_start"].(map[string]any); since["aspects_updated"] != float64(2) || since["decays"] != float64(1) ||
		since["aspects_decayed"] != float64(1) {
		t.Fatalf("feedback telemetry: %v", st)
	}

	// Two more sessions using nothing: the fourth decays staging to the
	// floor (0.27 - 0.25 is below min_weight 0.1); prod, confirmed today,
	// stays.
	feedbackSession(t, e, "fb-3", "write the invoices migration", "User: invoices table migration\nAssistant: written")
	feedbackSession(t, e, "fb-4", "add an index to invoices", "User: invoices index\nAssistant: added")
	if w := aspectWeightOf(t, e, staging); !near(w, 0.1) {
		t.Fatalf("decayed to the floor: %v", w)
	}
	if w := aspectWeightOf(t, e, prod); !near(w, 0.52) {
		t.Fatalf("prod is not stale yet: %v", w)
	}
}

// The weight never passes feedback.max_weight; off, nothing moves.
func TestAspectFeedbackCeilingAndOff(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Feedback.MaxWeight = 0.51 })
	staging := e.MustID(t, "staging runs Postgres 14", "project", feedbackProject)
	feedbackSession(t, e, "fb-1", "upgrade staging from postgres 14", "User: staging postgres 14 needs the upgrade\nAssistant: done")
	if w := aspectWeightOf(t, e, staging); !near(w, 0.51) {
		t.Fatalf("clamped at max_weight: %v", w)
	}

	off := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Feedback.Enabled = false })
	staging = off.MustID(t, "staging runs Postgres 14", "project", feedbackProject)
	feedbackSession(t, off, "fb-1", "upgrade staging from postgres 14", "User: staging postgres 14 needs the upgrade\nAssistant: done")
	if w := aspectWeightOf(t, off, staging); !near(w, 0.5) {
		t.Fatalf("feedback off: %v", w)
	}
}

// With feedback.rank_weight above zero, session start ranks a memory of
// a confirmed aspect above an equal one whose aspect was not; at 0 (the
// default) the order is the baseline's.
func TestAspectWeightRanksSessionStart(t *testing.T) {
	for _, rw := range []float64{0, 2} {
		e := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Feedback.RankWeight = rw })
		staging := e.MustID(t, "staging runs Postgres 14", "project", feedbackProject)
		e.Clock.Advance(time.Minute)
		prod := e.MustID(t, "the prod database listens on port 5432", "project", feedbackProject)
		first := func(r *apitest.Resp) string { return r.List(t, "memories")[0]["id"].(string) }
		start := feedbackSession(t, e, "fb-1", "upgrade staging from postgres 14", "User: staging postgres 14 needs the upgrade\nAssistant: done")
		if got := first(start); got != prod {
			t.Fatalf("rank_weight %v: before any feedback the newer memory leads: %s", rw, got)
		}
		start = feedbackSession(t, e, "fb-2", "anything else?", "User: nothing\nAssistant: ok")
		want := prod
		if rw > 0 {
			want = staging
		}
		if got := first(start); got != want {
			t.Fatalf("rank_weight %v: after staging's aspect was confirmed the first memory is %s, want %s", rw, got, want)
		}
	}
}
