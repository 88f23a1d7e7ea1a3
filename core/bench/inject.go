package bench

import (
	"context"
	"fmt"
	"math"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
)

// The injection benchmark: what the prompt hook pushes into an agent's
// context. One conversation is remembered into project A; its own
// questions (codes 1-4) are sent to POST /api/hooks/user-prompt-submit as
// prompts from project A, each in a fresh session; then the questions of
// every other conversation are sent from project A too. A good hook
// injects an evidence turn for the own questions, few memories per prompt,
// and nothing for the foreign ones.

// InjectStats counts what the hook injected for a set of prompts.
type InjectStats struct {
	Prompts  int `json:"prompts"`
	Injected int `json:"prompts_injected"` // prompts that got at least one memory
	Memories int `json:"memories"`         // memories injected in all
	Evidence int `json:"prompts_with_evidence"`
}

// Add adds o to s.
func (s *InjectStats) Add(o InjectStats) {
	s.Prompts += o.Prompts
	s.Injected += o.Injected
	s.Memories += o.Memories
	s.Evidence += o.Evidence
}

// InjectReport is the benchmark's result over every conversation.
type InjectReport struct {
	Conversations int         `json:"conversations"`
	Own           InjectStats `json:"own"`
	Foreign       InjectStats `json:"foreign"`
	// EvidenceHitRate is the share of own prompts for which an evidence
	// turn was injected; MemoriesPerPrompt the memories injected per own
	// prompt; FalseInjectionRate the share of foreign prompts that got
	// anything.
	EvidenceHitRate    float64 `json:"evidence_hit_rate"`
	MemoriesPerPrompt  float64 `json:"memories_per_prompt"`
	MemoriesPerInject  float64 `json:"memories_per_injecting_prompt"`
	FalseInjectionRate float64 `json:"false_injection_rate"`
}

// Finish computes the rates.
func (r *InjectReport) Finish() {
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return math.Round(1000*float64(a)/float64(b)) / 10
	}
	r.EvidenceHitRate = pct(r.Own.Evidence, r.Own.Prompts)
	r.FalseInjectionRate = pct(r.Foreign.Injected, r.Foreign.Prompts)
	if r.Own.Prompts > 0 {
		r.MemoriesPerPrompt = math.Round(100*float64(r.Own.Memories)/float64(r.Own.Prompts)) / 100
	}
	if r.Own.Injected > 0 {
		r.MemoriesPerInject = math.Round(100*float64(r.Own.Memories)/float64(r.Own.Injected)) / 100
	}
}

// promptHook sends one prompt from project in a fresh session and returns
// the ids of the memories injected.
func promptHook(ctx context.Context, cl *client.Remote, project, session, prompt string) ([]string, error) {
	out, err := cl.Hook(ctx, "user-prompt-submit", map[string]any{"harness": "claude-code", "session_id": session,
		"cwd": project, "prompt": prompt})
	if err != nil {
		return nil, err
	}
	var ids []string
	ms, _ := out["memories"].([]any)
	for _, m := range ms {
		if mm, ok := m.(map[string]any); ok {
			if id, ok := mm["id"].(string); ok {
				ids = append(ids, id)
			}
		}
	}
	return ids, nil
}

// InjectOwn sends the headline questions (codes 1-4) of the one
// conversation in, remembered in the project named by its id, as prompts
// from that project.
func InjectOwn(ctx context.Context, cl *client.Remote, in *Ingested) (InjectStats, error) {
	var st InjectStats
	for _, sm := range in.Samples {
		for i, q := range sm.Questions {
			if q.Category < 1 || q.Category > 4 {
				continue
			}
			ids, err := promptHook(ctx, cl, sm.ID, fmt.Sprintf("bench-own-%s-%d", sm.ID, i), q.Question)
			if err != nil {
				return st, fmt.Errorf("prompt %q: %w", q.Question, err)
			}
			st.Prompts++
			st.Memories += len(ids)
			if len(ids) > 0 {
				st.Injected++
			}
			hits := in.rank(sm.ID, hitsOf(ids))
			ev := evidenceSet(q.Evidence)
			for _, d := range hits {
				if ev[d] {
					st.Evidence++
					break
				}
			}
		}
	}
	return st, nil
}

// InjectForeign sends the headline questions of other conversations as
// prompts from project.
func InjectForeign(ctx context.Context, cl *client.Remote, project string, others []Sample) (InjectStats, error) {
	var st InjectStats
	for _, sm := range others {
		for i, q := range sm.Questions {
			if q.Category < 1 || q.Category > 4 {
				continue
			}
			ids, err := promptHook(ctx, cl, project, fmt.Sprintf("bench-foreign-%s-%s-%d", project, sm.ID, i), q.Question)
			if err != nil {
				return st, fmt.Errorf("prompt %q: %w", q.Question, err)
			}
			st.Prompts++
			st.Memories += len(ids)
			if len(ids) > 0 {
				st.Injected++
			}
		}
	}
	return st, nil
}

// hitsOf wraps memory ids as recall hits, for Ingested.rank.
func hitsOf(ids []string) []*core.RecallHit {
	out := make([]*core.RecallHit, len(ids))
	for i, id := range ids {
		out[i] = &core.RecallHit{ID: id}
	}
	return out
}
