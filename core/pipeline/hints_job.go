package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// Prospective indexing with a model (docs/design/pipeline.md,
// "Prospective indexing with a model"): after a memory is extracted, a
// prospective_index job asks the model for the questions a user might later
// ask that the memory answers; they replace the memory's heuristic hints in
// the hints index.

// HintsJobResult is a prospective_index job's result.
type HintsJobResult struct {
	Status   string   `json:"status"` // completed, skipped or empty
	Reason   string   `json:"reason,omitempty"`
	Provider string   `json:"provider"`
	Hints    []string `json:"hints,omitempty"`
}

// hintChars bounds one hint.
const hintChars = 200

// WantsModelHints says whether memories extracted with llm get a
// prospective_index job: hints on, hints.llm on, and llm a model (not
// the heuristic).
func (s *Pipeline) WantsModelHints(llm extract.LLM) bool {
	cfg := s.svc.Config().Hints
	if !cfg.Enabled || !cfg.LLM || llm == nil {
		return false
	}
	_, lexical := llm.(extract.LexicalDecider)
	return !lexical
}

// EnqueueHints queues a prospective_index job for memory id (none when one
// is pending or leased).
func (s *Pipeline) EnqueueHints(ctx context.Context, memoryID string) error {
	return s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		_, err := storage.EnqueueJob(ctx, tx, core.NewID(), memoryID, jobs.ProspectiveIndex, "", s.svc.Config().PipelineV2.MaxAttempts, s.svc.Timestamp())
		return err
	})
}

// ProcessHintsJob runs one leased prospective_index job: the model writes
// up to hints.max questions (outside any transaction), and one
// transaction that checks the lease replaces the memory's hints and
// completes the job. A model that answers no usable question leaves the
// heuristic hints in place.
func (s *Pipeline) ProcessHintsJob(ctx context.Context, job *storage.Job, llm extract.LLM) (*HintsJobResult, error) {
	res := &HintsJobResult{Status: "completed", Provider: llm.Name()}
	src, err := storage.GetMemory(ctx, s.svc.DB().Reader(), job.MemoryID)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && src.IsDeleted) {
		res.Status, res.Reason = "skipped", "memory missing or deleted"
		return res, s.jobs.Complete(ctx, job, res)
	} else if err != nil {
		return nil, err
	}
	cfg := s.svc.Config().Hints
	out, err := llm.Generate(ctx, hintsPrompt(stripInjectedBlocks(src.Content), cfg.Max),
		extract.GenerateOptions{JSON: true, MaxTokens: 40 + 40*cfg.Max, Timeout: cfg.Timeout.D()})
	if err != nil {
		return nil, fmt.Errorf("prospective index of %s: %w", src.ID, err)
	}
	res.Hints = ParseHints(out, cfg.Max)
	for i, h := range res.Hints {
		res.Hints[i] = s.svc.Redact(h)
	}
	if len(res.Hints) == 0 {
		res.Status, res.Reason = "empty", "the model wrote no usable question; the heuristic hints stay"
		return res, s.jobs.Complete(ctx, job, res)
	}
	b, _ := json.Marshal(res)
	err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		if err := storage.CheckLease(ctx, tx, job); err != nil {
			return err
		}
		if m, err := storage.GetMemory(ctx, tx, src.ID); err != nil || m.IsDeleted || m.ContentHash != src.ContentHash {
			res.Status, res.Reason, res.Hints = "skipped", "memory changed or deleted while the model wrote", nil
			b, _ = json.Marshal(res)
			return storage.CompleteJob(ctx, tx, job, string(b), s.svc.Timestamp())
		}
		if err := storage.ReplaceModelHints(ctx, tx, src.ID, llm.Name(), res.Hints, s.svc.Timestamp()); err != nil {
			return err
		}
		return storage.CompleteJob(ctx, tx, job, string(b), s.svc.Timestamp())
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func hintsPrompt(content string, max int) string {
	return fmt.Sprintf(`Here is a memory an AI coding agent keeps about its work and its user.
Write up to %d short questions a user or agent might ask later that this memory answers. Use the words a person asking would use, not the memory's own phrasing.
Answer with JSON only: {"questions": ["...", "..."]}

Memory:
%s`, max, truncate(content, 2000))
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

var fenceOrThink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)<think>.*?</think>|```[a-zA-Z]*") })

// ParseHints reads a model's questions: {"questions": [...]} (or a bare
// array), else one question per line; fences and think blocks are
// stripped, and each question is one line of at most 200 characters,
// distinct, without control characters, at most max of them.
func ParseHints(out string, max int) []string {
	out = strings.TrimSpace(fenceOrThink().ReplaceAllString(out, ""))
	var list []string
	var obj struct {
		Questions []any `json:"questions"`
		Hints     []any `json:"hints"`
	}
	var arr []any
	switch {
	case json.Unmarshal([]byte(out), &obj) == nil && (len(obj.Questions) > 0 || len(obj.Hints) > 0):
		for _, v := range append(obj.Questions, obj.Hints...) {
			if s, ok := v.(string); ok {
				list = append(list, s)
			}
		}
	case json.Unmarshal([]byte(out), &arr) == nil:
		for _, v := range arr {
			if s, ok := v.(string); ok {
				list = append(list, s)
			}
		}
	default:
		for _, l := range strings.Split(out, "\n") {
			l = strings.TrimLeft(strings.TrimSpace(l), "-*0123456789.) ")
			if strings.HasSuffix(l, "?") {
				list = append(list, l)
			}
		}
	}
	seen := map[string]bool{}
	var hints []string
	for _, h := range list {
		h = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, strings.ToValidUTF8(h, ""))
		h = strings.Join(strings.Fields(h), " ")
		if utf8.RuneCountInString(h) > hintChars {
			h = string([]rune(h)[:hintChars])
		}
		key := strings.ToLower(h)
		if len(text.QueryTerms(h)) == 0 || seen[key] {
			continue
		}
		seen[key] = true
		hints = append(hints, h)
		if len(hints) == max {
			break
		}
	}
	return hints
}
