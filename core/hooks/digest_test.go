package hooks_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// The recovery digest after a compaction carries what the session was
// doing (its substantive prompts and decisions, no greetings or jokes),
// its real duration, the user's /compact instructions, each line once.
func TestRecoveryDigestCarriesTheSession(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoPipeline)
	hook := func(event string, body map[string]any) *apitest.Resp {
		t.Helper()
		body["harness"], body["cwd"], body["session_id"] = "claude-code", projA, "s-c"
		return e.Post(t, "/api/hooks/"+event, body).Want(t, 200)
	}
	hook("session-start", map[string]any{"source": "startup"})
	for _, p := range []string{
		"Hi! How's it going?",
		"We have a bug: some customers got two invoices for the same payment. Can you look into it?",
		"Write a haiku about autumn leaves.",
		"Make it a bit shorter.",
		"From now on the webhook handler must answer Stripe within 3 seconds; rendering moves to a background job.",
		"ok thanks",
	} {
		e.Clock.Advance(4 * time.Second)
		hook("user-prompt-submit", map[string]any{"prompt": p})
	}
	e.Clock.Advance(2 * time.Second) // 22 s since the start
	hook("pre-compaction", map[string]any{"custom_instructions": "Keep the root cause of the duplicate invoices."})
	e.Clock.Advance(10 * time.Second)
	hook("pre-compaction", map[string]any{}) // a second checkpoint: nothing new to say
	digest := hook("session-start", map[string]any{"source": "compact"}).Str("inject")
	digest = digest[strings.Index(digest, "## Session Recovery"):]
	for _, want := range []string{
		"6 prompts in 36s",
		"Keep the root cause of the duplicate invoices.",
		"some customers got two invoices for the same payment",
		"must answer Stripe within 3 seconds",
	} {
		if !strings.Contains(digest, want) {
			t.Errorf("digest lacks %q:\n%s", want, digest)
		}
	}
	for _, chatter := range []string{"haiku", "a bit shorter", "How's it going", "ok thanks", "in 0s"} {
		if strings.Contains(digest, chatter) {
			t.Errorf("digest carries %q:\n%s", chatter, digest)
		}
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(digest, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "- ") {
			if seen[l] {
				t.Errorf("digest repeats %q:\n%s", l, digest)
			}
			seen[l] = true
		}
	}
}
