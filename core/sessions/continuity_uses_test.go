package sessions_test

import (
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// usesOf are the uses GET /api/sessions/{key} shows per memory offered.
func usesOf(t *testing.T, e *apitest.Env, key string) map[string]float64 {
	t.Helper()
	cont := e.Get(t, "/api/sessions/"+key).Want(t, 200).JSON["continuity"].(map[string]any)
	out := map[string]float64{}
	for _, m := range cont["memories"].([]any) {
		row := m.(map[string]any)
		out[row["memory_id"].(string)] = row["uses"].(float64)
	}
	return out
}

// Signs of use (continuity.use_signal "weight", the default): a line of
// the transcript that holds a memory's rare words is a use, however far
// into the transcript it comes (the whole transcript is read, not its
// first 32 words); one word in common is not; and a memory written in the
// session is not used by the text it came from.
func TestSignsOfUseWeighWords(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed)
	dog := e.MustID(t, "Caroline adopted a greyhound named Biscuit from the Lakeside shelter", "project", projA)
	cake := e.MustID(t, "Melanie bakes a lemon cake for the neighbourhood fair", "project", projA)
	hook := func(ev string, body map[string]any) *apitest.Resp {
		body["harness"], body["session_id"], body["cwd"] = "claude-code", "s-uses", projA
		return e.Post(t, "/api/hooks/"+ev, body).Want(t, 200)
	}
	st := hook("session-start", map[string]any{"source": "startup"})
	if inj := st.Str("inject"); !strings.Contains(inj, "Biscuit") || !strings.Contains(inj, "lemon cake") {
		t.Fatalf("both memories are injected at session start: %s", inj)
	}
	own := hook("remember", map[string]any{"content": "the invoices migration adds a currency column to ledger entries"}).Str("id")
	hook("user-prompt-submit", map[string]any{"prompt": "which currency column does the invoices migration add to ledger entries?"})
	if _, ok := usesOf(t, e, "s-uses")[own]; !ok {
		t.Fatalf("the memory written in the session was offered to its next prompt: %v", usesOf(t, e, "s-uses"))
	}

	var tr strings.Builder
	tr.WriteString("User: we spent the morning on release notes, packaging scripts, changelog wording, version numbers, " +
		"signing keys, mirrors, download pages, checksums, announcement drafts, translations, screenshots and the website theme\n")
	tr.WriteString("Assistant: done with all of that; the invoices migration adds a currency column to ledger entries\n")
	tr.WriteString("User: also remind me to buy a cake\n")
	tr.WriteString("User: Biscuit the greyhound from Lakeside needs a vet visit\n")
	hook("session-end", map[string]any{"transcript": tr.String()})

	uses := usesOf(t, e, "s-uses")
	if uses[dog] < 1 {
		t.Fatalf("the greyhound memory's rare words on the transcript's last line are a use: %v", uses)
	}
	if uses[cake] != 0 {
		t.Fatalf("one word in common (cake) is not a use: %v", uses)
	}
	if uses[own] != 0 {
		t.Fatalf("the transcript holding the session's own memory is its source, not a use: %v", uses)
	}
	// It has no relevance either (the learned ranker does not learn that
	// what a session wrote is useless to it), the others do.
	cont := e.Get(t, "/api/sessions/s-uses").Want(t, 200).JSON["continuity"].(map[string]any)
	for _, m := range cont["memories"].([]any) {
		row := m.(map[string]any)
		_, has := row["relevance"]
		if has == (row["memory_id"] == own) {
			t.Fatalf("relevance set for %v (own memory %s)", row, own)
		}
	}
	if sc := cont["score"].(map[string]any); sc["memories_recalled"] != float64(2) || sc["memories_used"] != float64(1) {
		t.Fatalf("the score counts the two injected memories, one used: %v", sc)
	}
}

// continuity.use_signal "share" is the earlier rule: two of the memory's
// words and a third of them, anywhere in the text.
func TestSignsOfUseShareRule(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Continuity.UseSignal = "share" })
	cake := e.MustID(t, "Melanie bakes a lemon cake for the fair", "project", projA)
	hook := func(ev string, body map[string]any) *apitest.Resp {
		body["harness"], body["session_id"], body["cwd"] = "claude-code", "s-share", projA
		return e.Post(t, "/api/hooks/"+ev, body).Want(t, 200)
	}
	hook("session-start", map[string]any{"source": "startup"})
	hook("session-end", map[string]any{"transcript": "User: the fair\nUser: a lemon cake please"})
	if uses := usesOf(t, e, "s-share"); uses[cake] < 1 {
		t.Fatalf("lemon, cake and fair are half the memory's words: a use under the share rule: %v", uses)
	}
}
