package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/cairnmem/cairn/core"

	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// --- extraction job -------------------------------------------------------------

// ExtractJobResult is an extract job's result, stored as the job's JSON.
type ExtractJobResult struct {
	Status     string `json:"status"` // completed or skipped
	SkipReason string `json:"skipReason,omitempty"`
	Source     string `json:"source,omitempty"` // the source memory id, or session:<key>
	Provider   string `json:"provider"`
	WriteMode  string `json:"writeMode"` // shadow or controlled-write
	// Facts are the extracted facts that were not screened out (a fact
	// restating its source would only copy the memory into the job);
	// FactCount counts them all.
	Facts       []extract.Fact      `json:"facts,omitempty"`
	Entities    []extract.Entity    `json:"entities,omitempty"`
	FactCount   int                 `json:"factCount"`
	EntityCount int                 `json:"entityCount"`
	Proposals   []*storage.Proposal `json:"proposals,omitempty"`
	Warnings    []string            `json:"warnings,omitempty"`
	WriteStats  WriteStats          `json:"writeStats"`
	StrippedRun int                 `json:"strippedChars,omitempty"`
	Graph       *GraphStats         `json:"graph,omitempty"` // knowledge graph persistence, after the facts
	// Screened counts the facts not proposed, by reason: restates_source
	// (a sentence of the memory itself), restates_live_memory,
	// proposed_before (pending, or from the same source), no_action (the
	// decision found an equivalent memory).
	Screened map[string]int `json:"screened,omitempty"`
	// SessionFrom is where in a session's transcript this extraction
	// started (the turns before were extracted by an earlier job).
	SessionFrom int `json:"sessionFrom,omitempty"`
}

// WriteStats counts what happened to a job's proposals.
type WriteStats struct {
	Added    int `json:"added"`
	Deduped  int `json:"deduped"`
	Skipped  int `json:"skipped"`
	Recorded int `json:"recorded"`
	Blocked  int `json:"blocked"`
	Updated  int `json:"updated"`
	Deleted  int `json:"deleted"`
	Failed   int `json:"failed"`
}

// injectedMarkers start blocks cairn itself injects into agent prompts;
// they are never extracted again (no feedback loop).
var injectedMarkers = []string{"[cairn:recall", "# Current Date & Time", "[memory active"}

// stripInjectedBlocks removes the blocks cairn injected into a transcript: each
// starts at a line beginning with one of the markers and runs to the next
// blank line (or a closing "[/cairn" line).
func stripInjectedBlocks(content string) string {
	lines := strings.Split(content, "\n")
	out := lines[:0:0]
	in := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if in {
			if t == "" || strings.HasPrefix(t, "[/cairn") {
				in = false
			}
			continue
		}
		for _, m := range injectedMarkers {
			if strings.HasPrefix(t, m) {
				in = true
				break
			}
		}
		if !in {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// pipelineTimeout is one model call's limit: the configured timeout, at
// most half the lease timeout (but at least 30 s).
func (s *Pipeline) pipelineTimeout() time.Duration {
	t := s.svc.Config().PipelineV2.Timeout.D()
	if t <= 0 {
		t = config.DefaultPipelineV2Timeout
	}
	if half := s.svc.Config().PipelineV2.LeaseTimeout.D() / 2; half > 0 && t > max(half, 30*time.Second) {
		t = max(half, 30*time.Second)
	}
	return t
}

// WriteMode is "shadow" or "controlled-write".
func (s *Pipeline) pipelineWriteMode() string {
	if s.svc.PipelineMode() == "controlled-write" {
		return "controlled-write"
	}
	return "shadow"
}

// ProcessExtractJob runs one leased extract job: it loads the source
// memory (a missing or deleted one completes the job as skipped), strips
// what cairn injected, extracts facts with llm, decides each fact against
// its top-5 hybrid candidates, and then, in one write transaction that
// first checks the job is still leased by this worker, records the
// Proposals with their history events, applies ADDs in controlled-write
// mode, marks the memory's extraction completed and completes the job.
// UPDATE and DELETE (controlled-write with allow_update_delete only) are
// applied afterwards (an UPDATE supersedes its target, a DELETE goes through
// Forget), guarded by the target's
// version. An error leaves the job leased for the caller to FailJob.
func (s *Pipeline) ProcessExtractJob(ctx context.Context, job *storage.Job, llm extract.LLM) (*ExtractJobResult, error) {
	res := &ExtractJobResult{Status: "completed", Provider: llm.Name(), WriteMode: s.pipelineWriteMode(),
		Facts: []extract.Fact{}, Entities: []extract.Entity{}, Proposals: []*storage.Proposal{}}
	var src *storage.Memory
	var raw string
	var err error
	var sess *sessionText
	if job.JobType == jobs.SessionExtract {
		src, sess, err = s.sessionSource(ctx, job)
		if err == nil {
			raw, res.SessionFrom = sess.unread(), sess.from
		}
	} else {
		src, err = storage.GetMemory(ctx, s.svc.DB().Reader(), job.MemoryID)
		if errors.Is(err, storage.ErrNotFound) || (err == nil && src.IsDeleted) {
			err = errSkipJob("source memory missing or deleted")
		} else if err == nil {
			raw = src.Content
		}
	}
	var skip errSkipJob
	if errors.As(err, &skip) {
		res.Status, res.SkipReason = "skipped", string(skip)
		return res, s.jobs.Complete(ctx, job, res)
	} else if err != nil {
		return nil, err
	}
	res.Source = src.ID

	// Extraction: outside any transaction.
	body := stripInjectedBlocks(raw)
	res.StrippedRun = len(raw) - len(body)
	ext, warns, err := s.extractWindows(ctx, body, job.JobType == jobs.SessionExtract, llm, src.ID)
	res.Warnings = append(res.Warnings, warns...)
	if err != nil {
		return nil, err
	}
	res.Facts, res.Entities = append(res.Facts, ext.Facts...), append(res.Entities, ext.Entities...)
	res.FactCount, res.EntityCount = len(ext.Facts), len(ext.Entities)

	// Screening and decisions: outside any transaction. A fact already
	// stored or proposed costs no decision search.
	facts, err := s.screenFacts(ctx, src, ext.Facts, res)
	if err != nil {
		return nil, err
	}
	res.Facts = facts
	now := s.svc.Timestamp()
	for _, f := range facts {
		p, warns, err := s.decide(ctx, job, src, f, llm)
		res.Warnings = append(res.Warnings, warns...)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue
		}
		if p.Action == extract.ActionNone {
			res.screened("no_action")
			continue
		}
		p.CreatedAt, p.UpdatedAt = now, now
		res.Proposals = append(res.Proposals, p)
	}

	mode := res.WriteMode
	cw := mode == "controlled-write"
	allowUD := cw && s.svc.Config().PipelineV2.AllowUpdateDelete
	minConf := s.svc.Config().PipelineV2.MinFactConfidenceForWrite
	var created []string
	var deferred []*storage.Proposal
	// decide's verdicts (a pinned target) survive the per-attempt reset
	// below.
	decided := make(map[*storage.Proposal]string, len(res.Proposals))
	for _, p := range res.Proposals {
		decided[p] = p.BlockedReason
	}
	err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		created, deferred = nil, nil
		res.WriteStats = WriteStats{}
		if err := storage.CheckLease(ctx, tx, job); err != nil {
			return err
		}
		for _, p := range res.Proposals {
			p.State, p.Shadow, p.Blocked, p.BlockedReason, p.SkippedReason, p.AppliedMemoryID = storage.ProposalPending, !cw, false, decided[p], "", ""
			switch p.Action {
			case extract.ActionAdd:
				switch {
				case !cw:
					res.WriteStats.Recorded++
				case p.Confidence < minConf:
					p.SkippedReason = "low_fact_confidence"
					res.WriteStats.Skipped++
				case min(p.Confidence, factConfidence(src)) < minConf:
					// A fact re-derived from a stated memory is inferred
					// knowledge (0.5): the memory itself is live; its rewording
					// waits for review.
					p.SkippedReason = "inferred_below_write_confidence"
					res.WriteStats.Skipped++
				case text.NormalizeContent(p.Fact).Storage == "":
					p.SkippedReason = "empty_fact_content"
					res.WriteStats.Skipped++
				default:
					id, deduped, err := s.insertFact(ctx, tx, p, src, llm.Name(), core.PipelineActor, "")
					if err != nil {
						return err
					}
					p.AppliedMemoryID = id
					if deduped {
						p.State, p.SkippedReason = storage.ProposalSkipped, "duplicate_content"
						res.WriteStats.Deduped++
					} else {
						p.State = storage.ProposalApplied
						created = append(created, id)
						res.WriteStats.Added++
					}
				}
			case extract.ActionUpdate, extract.ActionDelete:
				switch {
				case p.BlockedReason != "": // set by decide: a pinned target
					p.Blocked = true
				case p.ReviewNeeded && cw:
					p.Blocked, p.BlockedReason = true, "contradiction_review_needed"
				case !cw:
				case !allowUD:
					p.Blocked, p.BlockedReason = true, "update_delete_not_allowed"
				default:
					deferred = append(deferred, p)
				}
				if p.Blocked {
					res.WriteStats.Blocked++
				} else if !cw {
					res.WriteStats.Recorded++
				}
				// What a session teaches is live at once, even when it
				// replaces a memory: the new fact is written now, and the
				// old memory's retirement waits for review (approving the
				// proposal supersedes it by this memory; until then the
				// hooks put this one first). Only facts that clear the
				// write threshold, as an ADD would.
				if cw && p.Blocked && p.Action == extract.ActionUpdate && isSessionSource(src.ID) &&
					min(p.Confidence, factConfidence(src)) >= minConf && text.NormalizeContent(p.Fact).Storage != "" {
					id, deduped, err := s.insertFact(ctx, tx, p, src, llm.Name(), core.PipelineActor, "")
					if err != nil {
						return err
					}
					p.AppliedMemoryID = id
					if !deduped {
						created = append(created, id)
						res.WriteStats.Added++
					}
				}
			}
			if err := storage.InsertProposal(ctx, tx, p); err != nil {
				return err
			}
			if err := s.proposalHistory(ctx, tx, src.ID, p, llm.Name(), res); err != nil {
				return err
			}
		}
		if sess != nil {
			if err := storage.SetTranscriptExtracted(ctx, tx, sess.key, len(sess.content), sess.hash()); err != nil {
				return err
			}
		} else if err := storage.MarkExtracted(ctx, tx, src.ID, llm.Name()); err != nil {
			return err
		}
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		return storage.CompleteJob(ctx, tx, job, string(b), s.svc.Timestamp())
	})
	if err != nil {
		return nil, err
	}
	graphMemory := src.ID
	if job.JobType == jobs.SessionExtract {
		// A session is not a memory: its entities and relations are
		// Recorded, linked to no memory (a link to "session:<key>" would
		// be purged as an orphan by the next retention sweep).
		graphMemory = ""
	}
	// The memories a session's facts became are linked to the entities
	// they name by the write path's inline linker, in their insert.
	s.persistJobGraph(ctx, job, graphMemory, ext, res)
	if len(created) > 0 {
		s.vec.EmbedSoon()
		for _, id := range created {
			s.svc.Publish(core.Event{Kind: core.EventCreated, MemoryID: id, Actor: core.PipelineActorName})
		}
	}
	if len(deferred) == 0 {
		return res, nil
	}
	// Updates supersede (supersede.go) and deletes go through Forget, in
	// their own transactions; then the proposals they applied and the job's result
	// are brought up to date together, so the stored result is the final
	// one.
	var applied []*storage.Proposal
	for _, p := range deferred {
		id, err := s.applyDestructive(ctx, p, llm.Name(), core.PipelineActor, "pipeline-v2: "+p.Reason)
		if err != nil {
			res.WriteStats.Failed++
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s of %s not applied: %v", p.Action, p.TargetMemoryID, err))
			continue
		}
		p.AppliedMemoryID = id
		if p.Action == extract.ActionUpdate {
			res.WriteStats.Updated++
		} else {
			res.WriteStats.Deleted++
		}
		applied = append(applied, p)
	}
	err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		now := s.svc.Timestamp()
		for _, p := range applied {
			if err := storage.DecideProposal(ctx, tx, p.ID, storage.ProposalPending, storage.ProposalApplied, p.AppliedMemoryID, core.PipelineActorName, "applied by the pipeline", now); err != nil {
				return err
			}
			p.State = storage.ProposalApplied
		}
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		return storage.SetJobResult(ctx, tx, job.ID, string(b))
	})
	if err != nil {
		// The writes are applied; only the record of them lags.
		s.svc.Logger().Warn("record applied pipeline proposals", "job", job.ID, "err", err)
	}
	return res, nil
}

// screened counts one fact not proposed, by reason.
func (r *ExtractJobResult) screened(reason string) {
	if r.Screened == nil {
		r.Screened = map[string]int{}
	}
	r.Screened[reason]++
}

// screenFacts drops the facts that would only restate what is stored: a
// sentence of the source memory itself, a live memory's content, a fact
// already pending or already proposed from the same source (a resumed
// session's transcript). Each costs a lookup, never a decision search.
func (s *Pipeline) screenFacts(ctx context.Context, src *storage.Memory, facts []extract.Fact, res *ExtractJobResult) ([]extract.Fact, error) {
	r := s.svc.DB().Reader()
	srcNorm, srcWords := "", ""
	if !isSessionSource(src.ID) {
		srcNorm = text.NormalizeContent(src.Content).Normalized
		srcWords = " " + wordSequence(src.Content) + " "
	}
	keep := make([]extract.Fact, 0, len(facts))
	for _, f := range facts {
		norm := text.NormalizeContent(f.Content)
		if norm.Storage == "" {
			res.screened("empty")
			continue
		}
		if srcNorm != "" && (strings.Contains(srcNorm, norm.Normalized) || strings.Contains(srcWords, " "+wordSequence(f.Content)+" ")) {
			res.screened("restates_source")
			continue
		}
		if _, err := storage.FindLiveByHash(ctx, r, norm.Hash, src.Project); err == nil {
			res.screened("restates_live_memory")
			continue
		} else if !errors.Is(err, storage.ErrNotFound) {
			return nil, err
		}
		if before, err := storage.ProposedBefore(ctx, r, f.Content, extract.ActionAdd, src.ID); err != nil {
			return nil, err
		} else if before {
			res.screened("proposed_before")
			continue
		}
		keep = append(keep, f)
	}
	return keep, nil
}

// wordSequence is s's words, lower-cased, one space apart, without the
// punctuation and markup between them: a fact the extractor cut out of a
// code fence or a list restates its source as surely as a sentence does.
func wordSequence(s string) string {
	var b strings.Builder
	inWord := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if !inWord && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			inWord = true
		} else {
			inWord = false
		}
	}
	return b.String()
}

// decide turns one fact into a proposal: ADD without a model call when no
// other memory is similar, else the model's decision over the top 5. A
// rejected decision (hallucinated id, no reason) returns nil and warnings.
func (s *Pipeline) decide(ctx context.Context, job *storage.Job, src *storage.Memory, f extract.Fact, llm extract.LLM) (*storage.Proposal, []string, error) {
	p := &storage.Proposal{ID: core.NewID(), JobID: job.ID, SourceMemoryID: src.ID, Fact: f.Content, FactType: f.Type, Confidence: f.Confidence}
	cands, ids, err := s.decisionCandidates(ctx, src, f, llm)
	if err != nil {
		return nil, nil, err
	}
	if len(cands) == 0 {
		p.Action, p.Reason = extract.ActionAdd, "no similar memory exists"
		return p, nil, nil
	}
	same := map[string]bool{}
	for _, c := range cands {
		same[c.ID] = c.SameSession
	}
	t0 := time.Now()
	raw, err := llm.Generate(ctx, extract.DecisionPrompt(f, cands), extract.GenerateOptions{JSON: true, Timeout: s.pipelineTimeout()})
	s.svc.Analytics().RecordProviderCall("llm:"+llm.Name(), time.Since(t0), err)
	if err != nil {
		s.noteExtraction(analytics.StageDecision, analytics.TimeoutCode(err, analytics.CodeDecisionTimeout, analytics.CodeDecisionProvider), err.Error(), src.ID)
		return nil, []string{fmt.Sprintf("decision for %q: %v", extract.ClipForWarning(f.Content, 60), err)}, nil
	}
	d, warns := extract.ParseDecision(raw, ids)
	if d.Action == "" {
		s.noteExtraction(analytics.StageDecision, analytics.CodeDecisionInvalid, strings.Join(warns, "; "), src.ID)
		return nil, warns, nil
	}
	p.Action, p.Reason = d.Action, d.Reason
	if (d.Action == extract.ActionUpdate || d.Action == extract.ActionDelete) && same[d.TargetID] {
		p.Action, p.Reason = extract.ActionAdd, "the decision's target was learned in the same session; the fact is added"
		warns = append(warns, fmt.Sprintf("%s of %s, learned in the same session, taken as add", d.Action, d.TargetID))
	}
	if p.Action == extract.ActionAdd {
		return p, warns, nil
	}
	p.TargetMemoryID = d.TargetID
	if d.TargetID == "" {
		return p, warns, nil
	}
	target, err := storage.GetMemory(ctx, s.svc.DB().Reader(), d.TargetID)
	if err != nil || target.IsDeleted {
		return nil, append(warns, fmt.Sprintf("decision target %s is gone", d.TargetID)), nil
	}
	p.TargetVersion = target.Version
	if d.Action == extract.ActionUpdate || d.Action == extract.ActionDelete {
		if risk, _ := extract.DetectContradiction(f.Content, target.Content); risk {
			p.ContradictionRisk, p.ReviewNeeded = true, true
		} else if risk, why, cw := s.semanticContradiction(ctx, llm, f.Content, target.Content); risk {
			p.ContradictionRisk, p.ReviewNeeded = true, true
			warns = append(append(warns, cw...), "review needed: "+why)
		} else {
			warns = append(warns, cw...)
		}
		if target.Pinned {
			p.BlockedReason = "pinned_target"
		}
	}
	return p, warns, nil
}

// decisionCandidates are the (at most 5) memories of src's project most
// like fact f, with their ids. A provider that compares words (the
// heuristic one) gets the keyword index's best matches: embedding the
// fact, or recall's graph and ranking, would cost more than its decision.
// A session's facts are decided against what was known before it: a
// candidate it taught itself earlier (at a compaction) is marked
// SameSession; it may make a fact redundant, never be replaced by it.
func (s *Pipeline) decisionCandidates(ctx context.Context, src *storage.Memory, f extract.Fact, llm extract.LLM) ([]extract.Candidate, []string, error) {
	var cands []extract.Candidate
	var ids []string
	sessionOf := map[string]string{}
	add := func(id, typ, content, session string) {
		if id == src.ID || len(cands) == 5 {
			return
		}
		cands = append(cands, extract.Candidate{ID: id, Type: typ, Content: content})
		ids = append(ids, id)
		if session != "" {
			sessionOf[id] = session
		}
	}
	filter := storage.MemoryFilter{Project: src.Project}
	if lx, ok := llm.(extract.LexicalDecider); ok && lx.LexicalDecisions() {
		hits, err := s.svc.KeywordSearch(ctx, f.Content, filter, 6)
		if err != nil {
			return nil, nil, fmt.Errorf("decision candidates: %w", err)
		}
		for _, h := range hits {
			add(h.Memory.ID, h.Memory.Type, h.Memory.Content, h.Memory.SessionID)
		}
	} else {
		rec, err := s.svc.Recall(ctx, core.RecallInput{Query: f.Content, Limit: 6, NoTracking: true, Mode: core.ModeHybrid, Filter: filter})
		if err != nil {
			var ce *core.Error
			if !errors.As(err, &ce) || ce.Code != core.CodeInvalidRequest {
				return nil, nil, fmt.Errorf("decision candidates: %w", err)
			}
			rec = &core.RecallResult{}
		}
		for _, h := range rec.Results {
			add(h.ID, h.Type, h.Content, "")
		}
		if isSessionSource(src.ID) && len(ids) > 0 {
			if sessionOf, err = storage.MemorySessions(ctx, s.svc.DB().Reader(), ids); err != nil {
				return nil, nil, fmt.Errorf("decision candidates: %w", err)
			}
		}
	}
	if isSessionSource(src.ID) && src.SessionID != "" {
		for i := range cands {
			cands[i].SameSession = sessionOf[cands[i].ID] == src.SessionID
		}
	}
	return cands, ids, nil
}

// insertFact writes an ADD through the write path: an existing live memory
// with the same content is reused (deduped), else a new memory derived from
// src is inserted with its "created" event. (insertOrDedup's source dedup
// would fold every fact of one source memory into the first, so the hash
// dedup is applied here and the insert is insertNew's.)
func (s *Pipeline) insertFact(ctx context.Context, tx storage.Tx, p *storage.Proposal, src *storage.Memory, model string, actor core.Actor, supersedes string) (string, bool, error) {
	norm := text.NormalizeContent(p.Fact)
	existing, err := storage.FindLiveByHash(ctx, tx, norm.Hash, src.Project)
	if err == nil {
		return existing.ID, true, nil
	} else if !errors.Is(err, storage.ErrNotFound) {
		return "", false, err
	}
	typ := p.FactType
	if typ == "" {
		typ = text.InferType(norm.Storage)
	}
	m := &storage.Memory{
		Content: norm.Storage, ContentHash: norm.Hash,
		Type: typ, Importance: p.Confidence, Confidence: min(p.Confidence, factConfidence(src)), Tags: []string{},
		Who: core.PipelineActorName, Why: "extracted-fact", Project: src.Project, SessionID: src.SessionID,
		SourceType: "pipeline-v2", SourceID: src.ID, ExtractionStatus: "completed", ExtractionModel: model,
	}
	meta := map[string]any{"proposalId": p.ID, "sourceMemoryId": src.ID}
	if supersedes != "" {
		meta["supersedes"] = supersedes
	}
	if err := s.svc.InsertNew(ctx, tx, m, actor.Normalized(), "extracted-fact", meta); err != nil {
		return "", false, err
	}
	return m.ID, false, nil
}

// applyDestructive applies an UPDATE or DELETE proposal, guarded by the
// target's version at proposal time: an UPDATE supersedes the target with
// a memory holding the fact (applyUpdate), a DELETE goes through Forget.
// Pinned targets are refused. It returns the memory the proposal applied
// as: the successor of an UPDATE, the target of a DELETE.
func (s *Pipeline) applyDestructive(ctx context.Context, p *storage.Proposal, model string, actor core.Actor, reason string) (string, error) {
	if p.Action == extract.ActionUpdate {
		id, _, err := s.applyUpdate(ctx, p, model, actor, reason)
		return id, err
	}
	if p.Action != extract.ActionDelete {
		return "", fmt.Errorf("not a destructive action: %s", p.Action)
	}
	target, err := storage.GetMemory(ctx, s.svc.DB().Reader(), p.TargetMemoryID)
	if errors.Is(err, storage.ErrNotFound) {
		return "", core.ErrNotFound
	} else if err != nil {
		return "", err
	}
	if target.Pinned {
		return "", &core.Error{Code: core.CodePinned, Message: "the proposal's target is pinned; the pipeline never changes pinned memories"}
	}
	var ifv *int64
	if p.TargetVersion > 0 {
		v := p.TargetVersion
		ifv = &v
	}
	_, err = s.svc.Forget(ctx, core.ForgetInput{ID: p.TargetMemoryID, Reason: reason, IfVersion: ifv}, actor)
	return p.TargetMemoryID, err
}

// proposalHistory writes the "none" history event on the source memory
// that records one proposal.
func (s *Pipeline) proposalHistory(ctx context.Context, tx storage.Tx, srcID string, p *storage.Proposal, model string, res *ExtractJobResult) error {
	by := core.PipelineActorName
	if p.Shadow {
		by = core.PipelineShadowBy
	}
	meta := map[string]any{
		"proposalId": p.ID, "proposedAction": p.Action, "fact": p.Fact, "confidence": p.Confidence,
		"targetMemoryId": p.TargetMemoryID, "shadow": p.Shadow, "blockedReason": p.BlockedReason,
		"skippedReason": p.SkippedReason, "reviewNeeded": p.ReviewNeeded, "contradictionRisk": p.ContradictionRisk,
		"state": p.State, "appliedMemoryId": p.AppliedMemoryID, "extractionModel": model,
		"factCount": res.FactCount, "entityCount": res.EntityCount,
	}
	return s.svc.AddHistory(ctx, tx, srcID, storage.EventNone, nil, nil, core.Actor{Name: by, Type: core.ActorPipeline}, "pipeline proposal: "+p.Action, meta)
}

// PipelineStatus is what GET /api/pipeline/status reports.

func (s *Pipeline) noteExtraction(stage, code, msg, memoryID string) {
	s.svc.Analytics().RecordError(analytics.ErrorEvent{Stage: stage, Code: code, Message: msg, MemoryID: memoryID, Actor: core.PipelineActorName})
}

// factConfidence caps an extracted fact's confidence by how it was got
// (docs/design/evolution.md, "Confidence by source"): observed in a
// session transcript, or inferred from a memory.
func factConfidence(src *storage.Memory) float64 {
	if strings.HasPrefix(src.ID, "session:") { // a session transcript's stand-in (sessionSource)
		return evolution.ConfidenceObserved
	}
	return evolution.ConfidenceInferred
}
