package hooks_test

import (
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// What reaches the agent after cairn has learned (issue 34): the repeat
// rule never holds back what a prompt is about because session start
// listed it; the gate lets through the memory a prompt contradicts or
// builds on, and stays quiet when only a common word is shared.

func prompt(t *testing.T, e *apitest.Env, session, text string) *apitest.Resp {
	t.Helper()
	body := map[string]any{"harness": "claude-code", "cwd": projA, "prompt": text}
	if session != "" {
		body["session_id"] = session
	}
	return e.Post(t, "/api/hooks/user-prompt-submit", body).Want(t, 200)
}

func TestRepeatRuleNeverHoldsBackWhatThePromptIsAbout(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoPipeline)
	postmortem := e.Mem(t, "The duplicate invoices postmortem: Stripe retried the invoice.paid webhook while the handler rendered the PDF.", map[string]any{"project": projA})
	e.Mem(t, "The dashboard is deployed on Vercel with a preview per pull request.", map[string]any{"project": projA})
	start := e.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "cwd": projA, "session_id": "s1", "source": "startup"}).Want(t, 200)
	if !strings.Contains(start.Str("inject"), "duplicate invoices postmortem") {
		t.Fatalf("session start did not list the postmortem:\n%s", start.Str("inject"))
	}
	// The prompt is about the postmortem session start listed: injected.
	r := prompt(t, e, "s1", "What did the duplicate invoices postmortem find about the webhook?")
	if ids := idsIn(r); !ids[postmortem] {
		t.Fatalf("held back the memory the prompt is about because session start listed it: %s", r)
	}
	// Given as an answer, it is not repeated at the next prompt.
	if ids := idsIn(prompt(t, e, "s1", "And the duplicate invoices postmortem's webhook fix?")); ids[postmortem] {
		t.Fatal("an answer was repeated at the next prompt")
	}
	// After hooks.dedup_prompts more prompts it may come again.
	for range 5 {
		prompt(t, e, "s1", "something else entirely about lunch")
	}
	if ids := idsIn(prompt(t, e, "s1", "What did the duplicate invoices postmortem find about the webhook?")); !ids[postmortem] {
		t.Fatal("an answer was held back past the repeat window")
	}
}

func idsIn(r *apitest.Resp) map[string]bool {
	out := map[string]bool{}
	ms, _ := r.JSON["memories"].([]any)
	for _, m := range ms {
		if mm, ok := m.(map[string]any); ok {
			out[mm["id"].(string)] = true
		}
	}
	return out
}

func TestPromptGateLetsThroughWhatAPromptContradicts(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoPipeline)
	sqlc := e.Mem(t, "We decided to use sqlc instead of gorm. gorm hid a pile of N+1 queries in our last project.", map[string]any{"project": projA})
	moment := e.Mem(t, "Not moment: it's deprecated and huge; dates go through date-fns.", map[string]any{"project": projA})
	for _, c := range []string{
		"The invoices table has id, customer_id, status, total and created_at.",
		"New migrations are generated from the schema, never written by hand.",
		"The customer detail page is in progress; the invoices page is done.",
		"Every customer has one Stripe account; the customer id is the Stripe id.",
		"Customer exports run at night and land in the exports bucket.",
		"The payments service retries a failed charge three times.",
	} {
		e.Mem(t, c, map[string]any{"project": projA})
	}
	for _, tc := range []struct {
		prompt string
		want   string
	}{
		{"Add gorm models for the new invoices table.", sqlc},
		{"Can I add moment for this date picker?", moment},
	} {
		r := prompt(t, e, "", tc.prompt)
		if !idsIn(r)[tc.want] {
			t.Errorf("%q did not get the memory it contradicts: %s", tc.prompt, r)
		}
	}
	// A prompt sharing only a word many memories hold gets nothing.
	if r := prompt(t, e, "", "Which map library shows customer locations?"); r.Num("memoryCount") != 0 {
		t.Errorf("a never-discussed prompt got an injection: %s", r)
	}
}
