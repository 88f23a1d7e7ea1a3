package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/storage"
)

// Continuity scoring with a model (docs/design/pipeline.md, "Session
// score"): after a session's transcript is extracted, a session_score job
// gives the model the memories injected into the session and the
// transcript; its score, confidence, counts, reasoning and per-memory
// relevance replace the heuristic score session end wrote.

// ScoreJobResult is a session_score job's result.
type ScoreJobResult struct {
	Status     string  `json:"status"` // completed or skipped
	Reason     string  `json:"reason,omitempty"`
	Provider   string  `json:"provider"`
	SessionKey string  `json:"session_key"`
	Score      float64 `json:"score"`
	Resolved   int     `json:"per_memory_resolved"`
}

// scoreTranscriptChars bounds the transcript in the prompt.
const scoreTranscriptChars = 12000

// EnqueueSessionScore queues a session_score job for session key (none
// when one is pending or leased).
func (s *Pipeline) EnqueueSessionScore(ctx context.Context, key string) error {
	payload, _ := json.Marshal(map[string]string{"session_key": key})
	return s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		_, err := storage.EnqueueJobOnce(ctx, tx, core.NewID(), jobs.SessionScore, string(payload), s.svc.Config().PipelineV2.MaxAttempts, s.svc.Timestamp())
		return err
	})
}

// WantsModelScore says whether sessions get a model's continuity score:
// continuity on and llm a model (not the heuristic).
func (s *Pipeline) WantsModelScore(llm extract.LLM) bool {
	if !s.svc.Config().Continuity.Enabled || llm == nil {
		return false
	}
	_, lexical := llm.(extract.LexicalDecider)
	return !lexical
}

// modelScore is what the model answers.
type modelScore struct {
	Score             *float64 `json:"score"`
	Confidence        *float64 `json:"confidence"`
	MemoriesUsed      *float64 `json:"memories_used"`
	NovelContextCount *float64 `json:"novel_context_count"`
	Reasoning         string   `json:"reasoning"`
	PerMemory         []struct {
		ID        string   `json:"id"`
		Relevance *float64 `json:"relevance"`
	} `json:"per_memory"`
}

// ProcessScoreJob runs one leased session_score job.
func (s *Pipeline) ProcessScoreJob(ctx context.Context, job *storage.Job, llm extract.LLM) (*ScoreJobResult, error) {
	res := &ScoreJobResult{Status: "completed", Provider: llm.Name()}
	var p struct {
		SessionKey string `json:"session_key"`
	}
	if err := json.Unmarshal([]byte(job.Payload), &p); err != nil || p.SessionKey == "" {
		res.Status, res.Reason = "skipped", "payload has no session_key"
		return res, s.jobs.Complete(ctx, job, res)
	}
	res.SessionKey = p.SessionKey
	r := s.svc.DB().Reader()
	mems, err := storage.SessionMemories(ctx, r, p.SessionKey)
	if err != nil {
		return nil, err
	}
	var injected []*storage.SessionMemory
	for _, m := range mems {
		if m.WasInjected {
			injected = append(injected, m)
		}
	}
	transcript, _, err := storage.TranscriptContent(ctx, r, p.SessionKey)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, err
	}
	if len(injected) == 0 || strings.TrimSpace(transcript) == "" {
		res.Status, res.Reason = "skipped", "no injected memory or no transcript: the heuristic score stands"
		return res, s.jobs.Complete(ctx, job, res)
	}
	out, err := llm.Generate(ctx, scorePrompt(injected, transcript), extract.GenerateOptions{JSON: true, MaxTokens: 200 + 30*len(injected)})
	if err != nil {
		return nil, fmt.Errorf("score session %s: %w", p.SessionKey, err)
	}
	sc, rel, err := ParseSessionScore(out, injected)
	if err != nil {
		return nil, fmt.Errorf("score session %s: %w", p.SessionKey, err)
	}
	res.Score, res.Resolved = sc.Score, len(rel)
	prev, err := storage.GetSessionScore(ctx, r, p.SessionKey)
	if err == nil {
		sc.Project, sc.Harness = prev.Project, prev.Harness
	} else if st, err := storage.SessionHead(ctx, r, p.SessionKey); err == nil {
		sc.Project, sc.Harness = st.Project, st.Harness
	}
	sc.SessionKey, sc.Method, sc.MemoriesRecalled, sc.CreatedAt = p.SessionKey, llm.Name(), len(injected), s.svc.Timestamp()
	sc.Reasoning = s.svc.Redact(sc.Reasoning)
	b, _ := json.Marshal(res)
	err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		if err := storage.CheckLease(ctx, tx, job); err != nil {
			return err
		}
		// The aspects the heuristic relevance confirmed at session end
		// follow the model's (core/ranker: Feedback).
		before, err := storage.SessionConfirmedAspects(ctx, tx, p.SessionKey)
		if err != nil {
			return err
		}
		if err := storage.SetSessionMemoryRelevance(ctx, tx, p.SessionKey, rel, sc.CreatedAt); err != nil {
			return err
		}
		if err := s.feedback.Revise(ctx, tx, p.SessionKey, before, s.svc.Now()); err != nil {
			return err
		}
		if err := storage.SaveSessionScore(ctx, tx, sc); err != nil {
			return err
		}
		return storage.CompleteJob(ctx, tx, job, string(b), sc.CreatedAt)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func scorePrompt(injected []*storage.SessionMemory, transcript string) string {
	var b strings.Builder
	b.WriteString(`An AI coding agent was given these memories at the start of its session or with its prompts.
Judge, from the session transcript, how useful they were.
Answer with JSON only:
{"score": 0-1 (how much the injected memories helped the session), "confidence": 0-1, "memories_used": count,
 "novel_context_count": count of things the session needed that no memory held, "reasoning": "one or two sentences",
 "per_memory": [{"id": "the 8-character id", "relevance": 0-1}]}

Memories:
`)
	for _, m := range injected {
		fmt.Fprintf(&b, "[%s] %s\n", shortID(m.MemoryID), oneLine(m.Content, 300))
	}
	b.WriteString("\nTranscript:\n")
	t := transcript
	if r := []rune(t); len(r) > scoreTranscriptChars {
		t = "[…]\n" + string(r[len(r)-scoreTranscriptChars:])
	}
	b.WriteString(t)
	return b.String()
}

// shortID is the 8 characters the prompt shows of an id: its tail
// (time-ordered ids share their heads).
func shortID(id string) string {
	if len(id) <= 8 {
		return id
	}
	return id[len(id)-8:]
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

func clampUnit(p *float64) float64 {
	if p == nil || math.IsNaN(*p) {
		return 0
	}
	return math.Min(1, math.Max(0, *p))
}

// ParseSessionScore reads a model's continuity score: fences
// and think blocks are stripped, missing fields are zero, scores are
// clamped to [0, 1], and each per_memory id (8 characters, or the whole
// id) is resolved against the injected memories; unknown ones are
// dropped.
func ParseSessionScore(out string, injected []*storage.SessionMemory) (*storage.SessionScore, map[string]float64, error) {
	out = strings.TrimSpace(fenceOrThink().ReplaceAllString(out, ""))
	if i, j := strings.Index(out, "{"), strings.LastIndex(out, "}"); i >= 0 && j > i {
		out = out[i : j+1]
	}
	var m modelScore
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return nil, nil, fmt.Errorf("the model's score is not JSON: %w", err)
	}
	if m.Score == nil {
		return nil, nil, errors.New("the model's answer has no score")
	}
	byShort := map[string]string{}
	for _, x := range injected {
		byShort[shortID(x.MemoryID)] = x.MemoryID
		byShort[x.MemoryID] = x.MemoryID
		if len(x.MemoryID) >= 8 {
			byShort[x.MemoryID[:8]] = x.MemoryID // a model may quote the head
		}
	}
	rel := map[string]float64{}
	for _, pm := range m.PerMemory {
		if id, ok := byShort[strings.Trim(strings.TrimSpace(pm.ID), "[]")]; ok {
			rel[id] = clampUnit(pm.Relevance)
		}
	}
	count := func(p *float64) int {
		if p == nil || math.IsNaN(*p) || *p < 0 {
			return 0
		}
		return int(math.Min(*p, 1e6))
	}
	reason := m.Reasoning
	if r := []rune(reason); len(r) > 1000 {
		reason = string(r[:1000])
	}
	return &storage.SessionScore{Score: clampUnit(m.Score), Confidence: clampUnit(m.Confidence),
		MemoriesUsed: min(count(m.MemoriesUsed), len(injected)), NovelContextCount: count(m.NovelContextCount),
		Reasoning: reason}, rel, nil
}
