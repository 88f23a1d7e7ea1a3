package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/client"
)

// The replay benchmark: LoCoMo conversations as agent sessions through the
// hooks. Each LoCoMo session is one session of the conversation's project:
// session start, then each turn in order as a user-prompt-submit prompt,
// after which the turn is remembered through the remember hook (what the
// agent would save as it goes), and at the end session end with the
// session's turns as its transcript (stored, extracted, scored). Every
// compact_every turns a compaction is injected: pre-compact, then session
// start with source compact. After the sessions the conversation's
// questions (codes 1-4) are asked as prompts, each in a fresh session.
//
// Recovery: at each compaction, the evidence turns (turns some question
// cites) of the window the compaction erased (since the session's start or
// its last compaction) are looked for in what the agent gets back: the
// recovery digest, the memories session start injects, and the memories
// injected into the next next_prompts prompts; with and without the
// digest.

// ReplayOptions shape a replay.
type ReplayOptions struct {
	CompactEvery int // turns between compactions
	NextPrompts  int // prompts after a compaction whose injections count
	// Settle, when set, waits until the server's background work is done
	// (the transcript's extraction, the embeddings): after each session
	// end and before the questions. Without it, what a prompt or a
	// question finds depends on how far the workers got, and two runs of
	// the same binary differ.
	Settle func(ctx context.Context) error
}

// RecoveryStats count what compactions carried across.
type RecoveryStats struct {
	Compactions int `json:"compactions"`
	// Evidence is the evidence turns the compactions erased.
	Evidence int `json:"evidence_turns"`
	// Digest, Injections, Both: of those, how many were in the recovery
	// digest, in the injected memories (session start after the compaction
	// and the next prompts), and in either.
	Digest     int `json:"in_digest"`
	Injections int `json:"in_injections"`
	Both       int `json:"in_digest_or_injections"`
	// DigestChars is the recovery digests' mean size.
	DigestChars float64 `json:"digest_chars_mean"`
	digestSum   int
}

// QuestionStats count the evidence the prompt hook injected for questions.
type QuestionStats struct {
	Prompts  int `json:"prompts"`
	Evidence int `json:"prompts_with_evidence"`
	// With a ranker note (predictor on, a model): what the model's and
	// the baseline's choices would each have injected.
	Ranked        int `json:"prompts_ranked"`
	ModelEvidence int `json:"model_prompts_with_evidence"`
	BaseEvidence  int `json:"baseline_prompts_with_evidence"`
	ModelActive   int `json:"prompts_model_active"`
}

// Add adds o to q.
func (q *QuestionStats) Add(o QuestionStats) {
	q.Prompts += o.Prompts
	q.Evidence += o.Evidence
	q.Ranked += o.Ranked
	q.ModelEvidence += o.ModelEvidence
	q.BaseEvidence += o.BaseEvidence
	q.ModelActive += o.ModelActive
}

// RelevanceStats measure how well the relevance session scoring gives the
// memories a session was offered (the learned ranker's training signal)
// agrees with the questions' evidence: of the memories offered, how many
// are evidence turns; of those the scoring found relevant (relevance above
// zero), how many are. Only remembered turns can be evidence: a fact the
// pipeline extracted from a transcript never counts as one.
type RelevanceStats struct {
	Offered          int `json:"offered"`
	OfferedEvidence  int `json:"offered_evidence"`
	Relevant         int `json:"relevant"`
	RelevantEvidence int `json:"relevant_evidence"`
}

// Add adds o to r.
func (r *RelevanceStats) Add(o RelevanceStats) {
	r.Offered += o.Offered
	r.OfferedEvidence += o.OfferedEvidence
	r.Relevant += o.Relevant
	r.RelevantEvidence += o.RelevantEvidence
}

// ReplayConv is one conversation's replay.
type ReplayConv struct {
	ID        string         `json:"id"`
	Sessions  int            `json:"sessions"`
	Prompts   int            `json:"prompts"`
	Recovery  RecoveryStats  `json:"recovery"`
	Questions QuestionStats  `json:"questions"`
	Relevance RelevanceStats `json:"relevance"`
	// Start, Prompt: what the ranker notes of the replayed sessions' own
	// session starts and prompts said.
	StartRanked, StartDiffer   int `json:"-"`
	PromptRanked, PromptDiffer int `json:"-"`
}

// locomoSessions splits a conversation's turns into its LoCoMo sessions
// (dia ids "D<session>:<turn>"), in order.
func locomoSessions(turns []Turn) [][]Turn {
	var out [][]Turn
	last := ""
	for _, t := range turns {
		s, _, _ := strings.Cut(t.DiaID, ":")
		if s != last || len(out) == 0 {
			out = append(out, nil)
			last = s
		}
		out[len(out)-1] = append(out[len(out)-1], t)
	}
	return out
}

// SessionCount is how many LoCoMo sessions samples hold.
func SessionCount(samples []Sample) int {
	n := 0
	for _, s := range samples {
		n += len(locomoSessions(s.Turns))
	}
	return n
}

// norm is text as a digest shows it: one line, the first n runes.
func norm(s string, n int) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n])
	}
	return s
}

func idsIn(out map[string]any, key string) []string {
	var ids []string
	ms, _ := out[key].([]any)
	for _, m := range ms {
		switch v := m.(type) {
		case map[string]any:
			if id, ok := v["id"].(string); ok {
				ids = append(ids, id)
			}
		case string:
			ids = append(ids, v)
		}
	}
	return ids
}

// rankerIDs reads a hook answer's ranker note: what the model and the
// baseline would inject, whether the model was used.
func rankerIDs(out map[string]any) (model, base []string, active, ok bool) {
	n, ok := out["ranker"].(map[string]any)
	if !ok {
		return nil, nil, false, false
	}
	active, _ = n["active"].(bool)
	return idsIn(n, "model"), idsIn(n, "baseline"), active, true
}

// ReplayConversation replays one conversation on cl (module comment).
func ReplayConversation(ctx context.Context, cl *client.Remote, sm Sample, o ReplayOptions, progress io.Writer) (*ReplayConv, error) {
	rc := &ReplayConv{ID: sm.ID}
	memDia := map[string][]string{}
	cited := map[string]bool{}
	for _, q := range sm.Questions {
		if q.Category >= 1 && q.Category <= 4 {
			for _, e := range q.Evidence {
				cited[e] = true
			}
		}
	}
	hook := func(ev, key string, body map[string]any) (map[string]any, error) {
		body["harness"], body["session_id"], body["cwd"] = "claude-code", key, sm.ID
		out, err := cl.Hook(ctx, ev, body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", ev, key, err)
		}
		return out, nil
	}
	diaOf := func(ids []string) map[string]bool {
		out := map[string]bool{}
		for _, id := range ids {
			for _, d := range memDia[id] {
				out[d] = true
			}
		}
		return out
	}
	type open struct {
		erased   []Turn
		digest   string
		injected map[string]bool
		left     int
	}
	finish := func(c *open) {
		for _, t := range c.erased {
			if !cited[t.DiaID] {
				continue
			}
			rc.Recovery.Evidence++
			inDigest := strings.Contains(c.digest, norm(Content(t), 60))
			if inDigest {
				rc.Recovery.Digest++
			}
			if c.injected[t.DiaID] {
				rc.Recovery.Injections++
			}
			if inDigest || c.injected[t.DiaID] {
				rc.Recovery.Both++
			}
		}
	}
	for n, turns := range locomoSessions(sm.Turns) {
		key := fmt.Sprintf("replay-%s-s%d", sm.ID, n+1)
		rc.Sessions++
		st, err := hook("session-start", key, map[string]any{"source": "startup"})
		if err != nil {
			return nil, err
		}
		if _, base, _, ok := rankerIDs(st); ok {
			rc.StartRanked++
			if model, _, _, _ := rankerIDs(st); !sameIDs(model, base) {
				rc.StartDiffer++
			}
		}
		var window []Turn
		var pending []*open
		var transcript strings.Builder
		for i, t := range turns {
			if i > 0 && o.CompactEvery > 0 && i%o.CompactEvery == 0 {
				if _, err := hook("pre-compaction", key, map[string]any{}); err != nil {
					return nil, err
				}
				st, err := hook("session-start", key, map[string]any{"source": "compact"})
				if err != nil {
					return nil, err
				}
				inj, _ := st["inject"].(string)
				digest := ""
				if k := strings.Index(inj, "## Session Recovery"); k >= 0 {
					digest = inj[k:]
					if e := strings.Index(digest[3:], "\n## "); e >= 0 {
						digest = digest[:e+3]
					}
				}
				rc.Recovery.Compactions++
				rc.Recovery.digestSum += utf8.RuneCountInString(digest)
				c := &open{erased: window, digest: norm(digest, math.MaxInt32), injected: diaOf(idsIn(st, "memories")), left: o.NextPrompts}
				window = nil
				if c.left == 0 {
					finish(c)
				} else {
					pending = append(pending, c)
				}
			}
			content := Content(t)
			out, err := hook("user-prompt-submit", key, map[string]any{"prompt": content})
			if err != nil {
				return nil, err
			}
			rc.Prompts++
			if model, base, _, ok := rankerIDs(out); ok {
				rc.PromptRanked++
				if !sameIDs(model, base) {
					rc.PromptDiffer++
				}
			}
			got := diaOf(idsIn(out, "memories"))
			kept := pending[:0]
			for _, c := range pending {
				for d := range got {
					c.injected[d] = true
				}
				if c.left--; c.left == 0 {
					finish(c)
				} else {
					kept = append(kept, c)
				}
			}
			pending = kept
			rem, err := hook("remember", key, map[string]any{"content": content})
			if err != nil {
				return nil, err
			}
			if id, _ := rem["id"].(string); id != "" {
				memDia[id] = append(memDia[id], t.DiaID)
			}
			window = append(window, t)
			fmt.Fprintf(&transcript, "%s\n", content)
		}
		for _, c := range pending {
			finish(c)
		}
		if _, err := hook("session-end", key, map[string]any{"transcript": transcript.String(), "reason": "replay"}); err != nil {
			return nil, err
		}
		if o.Settle != nil {
			if err := o.Settle(ctx); err != nil {
				return nil, err
			}
		}
		info, err := cl.Session(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("session %s: %w", key, err)
		}
		if info.Continuity != nil {
			for _, m := range info.Continuity.Memories {
				ev := false
				for _, d := range memDia[m.MemoryID] {
					ev = ev || cited[d]
				}
				rel := m.Relevance != nil && *m.Relevance > 0
				rc.Relevance.Add(RelevanceStats{Offered: 1, OfferedEvidence: b2i(ev), Relevant: b2i(rel), RelevantEvidence: b2i(rel && ev)})
			}
		}
	}
	for i, q := range sm.Questions {
		if q.Category < 1 || q.Category > 4 {
			continue
		}
		out, err := hook("user-prompt-submit", fmt.Sprintf("replay-q-%s-%d", sm.ID, i), map[string]any{"prompt": q.Question})
		if err != nil {
			return nil, err
		}
		has := func(ids []string) bool {
			got := diaOf(ids)
			for _, e := range q.Evidence {
				if got[e] {
					return true
				}
			}
			return false
		}
		rc.Questions.Prompts++
		if has(idsIn(out, "memories")) {
			rc.Questions.Evidence++
		}
		if model, base, active, ok := rankerIDs(out); ok {
			rc.Questions.Ranked++
			if active {
				rc.Questions.ModelActive++
			}
			if has(model) {
				rc.Questions.ModelEvidence++
			}
			if has(base) {
				rc.Questions.BaseEvidence++
			}
		}
	}
	fmt.Fprintf(progress, "bench: replay %s: %d sessions, %d prompts, %d compactions, %d questions (%d with evidence injected)\n",
		sm.ID, rc.Sessions, rc.Prompts, rc.Recovery.Compactions, rc.Questions.Prompts, rc.Questions.Evidence)
	return rc, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sameIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ReplayPart is the figures of a set of conversations.
type ReplayPart struct {
	Conversations int            `json:"conversations"`
	Sessions      int            `json:"sessions"`
	Prompts       int            `json:"prompts"`
	Recovery      RecoveryStats  `json:"recovery"`
	Questions     QuestionStats  `json:"questions"`
	Relevance     RelevanceStats `json:"relevance"`
	// Shares in percent.
	DigestShare     float64 `json:"recovery_digest_pct"`
	InjectionsShare float64 `json:"recovery_injections_pct"`
	BothShare       float64 `json:"recovery_digest_or_injections_pct"`
	EvidenceHitRate float64 `json:"evidence_hit_rate_pct"`
	ModelHitRate    float64 `json:"model_evidence_hit_rate_pct,omitempty"`
	BaselineHitRate float64 `json:"baseline_evidence_hit_rate_pct,omitempty"`
	// OfferedEvidenceShare: evidence turns among the memories offered;
	// RelevantEvidenceShare: among those the scoring found relevant;
	// EvidenceRelevantShare: the offered evidence turns found relevant.
	OfferedEvidenceShare  float64 `json:"offered_evidence_pct"`
	RelevantEvidenceShare float64 `json:"relevant_evidence_pct"`
	EvidenceRelevantShare float64 `json:"evidence_relevant_pct"`
	StartRanked           int     `json:"session_starts_ranked"`
	StartDiffer           int     `json:"session_starts_model_differs"`
	PromptRanked          int     `json:"prompts_ranked"`
	PromptDiffer          int     `json:"prompts_model_differs"`
	QuestionsModelSet     int     `json:"questions_model_active"`
}

// Add adds a conversation to p.
func (p *ReplayPart) Add(c *ReplayConv) {
	p.Conversations++
	p.Sessions += c.Sessions
	p.Prompts += c.Prompts
	r := &p.Recovery
	r.Compactions += c.Recovery.Compactions
	r.Evidence += c.Recovery.Evidence
	r.Digest += c.Recovery.Digest
	r.Injections += c.Recovery.Injections
	r.Both += c.Recovery.Both
	r.digestSum += c.Recovery.digestSum
	p.Questions.Add(c.Questions)
	p.Relevance.Add(c.Relevance)
	p.StartRanked += c.StartRanked
	p.StartDiffer += c.StartDiffer
	p.PromptRanked += c.PromptRanked
	p.PromptDiffer += c.PromptDiffer
}

// Finish computes the shares.
func (p *ReplayPart) Finish() {
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return math.Round(1000*float64(a)/float64(b)) / 10
	}
	r := &p.Recovery
	p.DigestShare, p.InjectionsShare, p.BothShare = pct(r.Digest, r.Evidence), pct(r.Injections, r.Evidence), pct(r.Both, r.Evidence)
	if r.Compactions > 0 {
		r.DigestChars = math.Round(float64(r.digestSum) / float64(r.Compactions))
	}
	rv := p.Relevance
	p.OfferedEvidenceShare, p.RelevantEvidenceShare = pct(rv.OfferedEvidence, rv.Offered), pct(rv.RelevantEvidence, rv.Relevant)
	p.EvidenceRelevantShare = pct(rv.RelevantEvidence, rv.OfferedEvidence)
	q := p.Questions
	p.EvidenceHitRate = pct(q.Evidence, q.Prompts)
	p.QuestionsModelSet = q.ModelActive
	if q.Ranked > 0 {
		p.ModelHitRate, p.BaselineHitRate = pct(q.ModelEvidence, q.Ranked), pct(q.BaseEvidence, q.Ranked)
	}
}
