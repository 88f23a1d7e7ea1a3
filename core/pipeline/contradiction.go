package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/extract"
)

// semanticContradiction runs the model check for an UPDATE or DELETE of
// target by fact when it applies (enabled, a real model, the syntactic
// detector negative, ≥ 3 shared content tokens). It reports a positive
// verdict at or above the configured confidence, and warnings for a model
// that failed or answered badly; a failure never fails the job.
func (s *Pipeline) semanticContradiction(ctx context.Context, llm extract.LLM, fact, target string) (bool, string, []string) {
	cfg := s.svc.Config().PipelineV2
	if !cfg.SemanticContradiction || llm.Name() == "heuristic" || extract.SharedContentTokens(fact, target) < 3 {
		return false, "", nil
	}
	timeout := min(cfg.SemanticContradictionTimeout.D(), s.pipelineTimeout())
	if timeout <= 0 {
		timeout = config.DefaultPipelineV2SemanticContradictionTimeout
	}
	v, ok, warns, err := s.askContradiction(ctx, llm, fact, target, timeout)
	if err != nil {
		return false, "", []string{fmt.Sprintf("contradiction check for %q skipped: %v", extract.ClipForWarning(fact, 60), err)}
	}
	if !ok || !v.Contradicts || v.Confidence < cfg.SemanticContradictionMinConfidence {
		return false, "", warns
	}
	why := v.Reason
	if why == "" {
		why = "the model judged the statements contradictory"
	}
	return true, fmt.Sprintf("semantic (confidence %.2f): %s", v.Confidence, why), warns
}

// askContradiction asks the model whether fact contradicts target, within
// timeout, and records the call: err when the call failed, ok false when
// the answer was no verdict (warns say why).
func (s *Pipeline) askContradiction(ctx context.Context, llm extract.LLM, fact, target string, timeout time.Duration) (v extract.SemanticVerdict, ok bool, warns []string, err error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t0 := time.Now()
	raw, err := llm.Generate(cctx, extract.ContradictionPrompt(fact, target), extract.GenerateOptions{JSON: true, Timeout: timeout})
	s.svc.Analytics().RecordProviderCall("llm:"+llm.Name(), time.Since(t0), err)
	if err != nil {
		return v, false, nil, err
	}
	v, ok, warns = extract.ParseContradiction(raw)
	return v, ok, warns, nil
}
