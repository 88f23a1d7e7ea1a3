package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/storage"
)

// Structural classification with a model (docs/design/pipeline.md,
// "Structural classification"). After a memory is extracted by a model, a
// structural_classify job is queued for each of its entities that has
// attributes (at most classifyEntities; one pending job per entity and
// slot): those the linker read from it, then those the graph links it to
// that have aspects already. Chatter naming other things costs no model
// call. The job reads the entity's newest memories in the slot (at most
// classifyBatch), asks the model in one call which aspect each is about
// and whether it is an attribute or a constraint (the prompt names the
// entity, its type, its aspects and the aspects suggested for its type),
// parses the answer defensively (think blocks, fences, prose, unknown or
// repeated indexes, bad kinds, long names), and writes it through
// evolution.Tx.ApplyClassification in a transaction that checks the lease.
// Then, retroactively, it asks the model whether the entity's newest
// memory contradicts its siblings in the same aspect: a confident yes
// supersedes the older sibling (evolution.Tx.SupersedeSibling), a weak yes
// becomes a proposal for review. No model call runs inside a transaction.

const (
	classifyBatch    = 20 // memories per entity per call
	classifyEntities = 3  // entities queued per memory
	classifyChecks   = 5  // sibling contradiction checks per job
	aspectMaxChars   = 40
	attrNameMaxChars = 60
	attrValueMaxRune = 80
	// weakContradiction: a model's yes below the configured confidence
	// but at least this becomes a proposal for review.
	weakContradiction = 0.5
)

// aspectSuggestions are the aspects offered to the model by entity type.
var aspectSuggestions = map[string][]string{
	"person":  {"role", "preferences", "ownership", "schedule", "contact", "decisions"},
	"project": {"architecture", "dependencies", "deployment", "conventions", "decisions", "ownership", "schedule"},
	"system":  {entities.AspectVersions, entities.AspectNetwork, entities.AspectPlatform, entities.AspectLimits, entities.AspectSettings, entities.AspectOwnership, entities.AspectLifecycle},
	"tool":    {entities.AspectVersions, entities.AspectSettings, "usage", entities.AspectDecisions},
	"concept": {"definition", "usage", entities.AspectDecisions},
	"task":    {"status", entities.AspectSchedule, entities.AspectOwnership},
	"unknown": {entities.AspectVersions, entities.AspectNetwork, entities.AspectPlatform, entities.AspectOwnership, entities.AspectSchedule, entities.AspectLifecycle, entities.AspectLimits, entities.AspectDecisions, entities.AspectSettings},
}

// ClassifyJobResult is a structural_classify job's result.
type ClassifyJobResult struct {
	Status     string   `json:"status"` // completed or skipped
	Reason     string   `json:"reason,omitempty"`
	Provider   string   `json:"provider"`
	Entity     string   `json:"entity"`
	Memories   int      `json:"memories"`
	Classified int      `json:"classified"`
	Checked    int      `json:"checked"`
	Superseded []string `json:"superseded,omitempty"`
	Proposed   int      `json:"proposed"`
	Warnings   []string `json:"warnings,omitempty"`
}

type classifyPayload struct {
	Slot    string `json:"slot"`
	Project string `json:"project,omitempty"`
	Entity  string `json:"entity"`
}

// WantsClassify says whether memories extracted with llm get their
// entities classified: llm must be a model (not the heuristic).
func (s *Pipeline) WantsClassify(llm extract.LLM) bool {
	if llm == nil {
		return false
	}
	_, lexical := llm.(extract.LexicalDecider)
	return !lexical
}

// EnqueueClassify queues a structural_classify job for each entity of
// memory id (none for an entity whose job is pending).
func (s *Pipeline) EnqueueClassify(ctx context.Context, memoryID string) error {
	r := s.svc.DB().Reader()
	m, err := storage.GetMemory(ctx, r, memoryID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	} else if err != nil || m.IsDeleted {
		return err
	}
	scope, err := storage.MemoryScope(ctx, r, memoryID)
	if err != nil {
		return err
	}
	ents, err := storage.ClassifyEntities(ctx, r, memoryID, classifyEntities)
	if err != nil || len(ents) == 0 {
		return err
	}
	pl := classifyPayload{Slot: evolution.Slot(m.Project, scope, m.Who)}
	if scope == "" {
		pl.Project = m.Project
	}
	return s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		for _, e := range ents {
			pl.Entity = e
			b, _ := json.Marshal(pl)
			if _, err := storage.EnqueueJobOnce(ctx, tx, core.NewID(), jobs.StructuralClassify, string(b), s.svc.Config().PipelineV2.MaxAttempts, s.svc.Timestamp()); err != nil {
				return err
			}
		}
		return nil
	})
}

// ProcessClassifyJob runs one leased structural_classify job.
func (s *Pipeline) ProcessClassifyJob(ctx context.Context, job *storage.Job, llm extract.LLM) (*ClassifyJobResult, error) {
	res := &ClassifyJobResult{Status: "completed", Provider: llm.Name()}
	var pl classifyPayload
	if err := json.Unmarshal([]byte(job.Payload), &pl); err != nil || pl.Entity == "" || pl.Slot == "" {
		res.Status, res.Reason = "skipped", "payload names no entity and slot"
		return res, s.jobs.Complete(ctx, job, res)
	}
	res.Entity = pl.Entity
	r := s.svc.DB().Reader()
	mems, err := storage.ClassifyMemories(ctx, r, pl.Slot, pl.Project, pl.Entity, classifyBatch)
	if err != nil {
		return nil, err
	}
	res.Memories = len(mems)
	if len(mems) == 0 {
		res.Status, res.Reason = "skipped", "no live memory about the entity"
		return res, s.jobs.Complete(ctx, job, res)
	}
	etype, err := storage.EntityType(ctx, r, pl.Entity)
	if err != nil {
		return nil, err
	}
	aspects, err := storage.EntityAspects(ctx, r, pl.Entity)
	if err != nil {
		return nil, err
	}
	contents := make([]string, len(mems))
	for i, m := range mems {
		contents[i] = m.Content
	}
	t0 := time.Now()
	out, err := llm.Generate(ctx, ClassifyPrompt(pl.Entity, etype, aspects, contents),
		extract.GenerateOptions{JSON: true, MaxTokens: 60 + 40*len(mems), Timeout: s.pipelineTimeout()})
	s.svc.Analytics().RecordProviderCall("llm:"+llm.Name(), time.Since(t0), err)
	if err != nil {
		return nil, fmt.Errorf("structural classification of %q: %w", pl.Entity, err)
	}
	items, warns := ParseClassification(out, len(mems))
	res.Warnings = warns
	cs := make([]evolution.Classification, 0, len(items))
	for _, it := range items {
		cs = append(cs, evolution.Classification{MemoryID: mems[it.I-1].ID, Aspect: it.Aspect, Kind: it.Kind, Name: it.Attribute, Value: it.Value})
	}
	err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		if err := storage.CheckLease(ctx, tx, job); err != nil {
			return err
		}
		n, err := s.svc.EvolutionTx(tx, core.PipelineActor).ApplyClassification(ctx, pl.Slot, pl.Entity, cs)
		res.Classified = n
		return err
	})
	if err != nil {
		return nil, err
	}

	// Retroactive supersession: the newest memory against its siblings.
	verdicts, warns := s.siblingVerdicts(ctx, llm, pl, mems[0])
	res.Warnings = append(res.Warnings, warns...)
	res.Checked = len(verdicts)
	err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		res.Superseded, res.Proposed = nil, 0
		if err := storage.CheckLease(ctx, tx, job); err != nil {
			return err
		}
		et := s.svc.EvolutionTx(tx, core.PipelineActor)
		for _, v := range verdicts {
			switch {
			case v.confident:
				ok, err := et.SupersedeSibling(ctx, pl.Slot, v.sib.MemoryID, mems[0].ID, pl.Entity, v.sib.Aspect,
					map[string]any{"check": "model", "reason": v.why, "attribute": v.sib.Name, "old_value": v.sib.Value})
				if err != nil {
					return err
				}
				if ok {
					res.Superseded = append(res.Superseded, v.sib.MemoryID)
				}
			case v.weak:
				if err := et.ProposeSiblingReview(ctx, mems[0].ID, v.sib, "model: "+v.why); err != nil {
					return err
				}
				res.Proposed++
			}
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
	for _, id := range res.Superseded {
		s.svc.Publish(core.Event{Kind: core.EventDeleted, MemoryID: id, Actor: core.PipelineActorName})
	}
	return res, nil
}

type siblingVerdict struct {
	sib             *storage.SiblingRow
	confident, weak bool
	why             string
}

// siblingVerdicts asks the model whether newest contradicts each sibling
// of its aspects that shares at least two content words with it (at most
// classifyChecks calls, outside any transaction).
func (s *Pipeline) siblingVerdicts(ctx context.Context, llm extract.LLM, pl classifyPayload, newest *storage.ClassifyMemory) ([]siblingVerdict, []string) {
	r := s.svc.DB().Reader()
	attrs, err := storage.MemoryEntityAttributes(ctx, r, newest.ID, pl.Entity)
	if err != nil {
		return nil, []string{"sibling check: " + err.Error()}
	}
	cfg := s.svc.Config().PipelineV2
	var out []siblingVerdict
	var warns []string
	asked := map[string]bool{}
	for _, a := range attrs {
		if a.Status != "live" || a.Aspect == "" {
			continue
		}
		sibs, err := storage.LiveSiblings(ctx, r, pl.Slot, pl.Entity, a.Aspect, newest.ID, siblingCandidates)
		if err != nil {
			return out, append(warns, "sibling check: "+err.Error())
		}
		for _, sib := range sibs {
			if asked[sib.MemoryID] || sib.Name == a.Name && sib.Value == a.Value {
				continue
			}
			if extract.SharedContentTokens(newest.Content, sib.Content) < 2 {
				continue
			}
			if len(asked) == classifyChecks {
				return out, warns
			}
			asked[sib.MemoryID] = true
			v, ok, w, err := s.askContradiction(ctx, llm, newest.Content, sib.Content, cfg.SemanticContradictionTimeout.D())
			if err != nil {
				warns = append(warns, fmt.Sprintf("sibling check of %s skipped: %v", sib.MemoryID, err))
				continue
			}
			warns = append(warns, w...)
			if !ok || !v.Contradicts {
				out = append(out, siblingVerdict{sib: sib})
				continue
			}
			why := v.Reason
			if why == "" {
				why = "the model judged the statements contradictory"
			}
			why = fmt.Sprintf("%s (confidence %.2f)", why, v.Confidence)
			out = append(out, siblingVerdict{sib: sib, why: why, confident: v.Confidence >= cfg.SemanticContradictionMinConfidence,
				weak: v.Confidence >= weakContradiction})
		}
	}
	return out, warns
}

// siblingCandidates bounds the siblings read per aspect.
const siblingCandidates = 20

// ClassifyPrompt builds the structural classification prompt for entity
// (of type etype, with its existing aspects) over its memories, numbered
// from 1.
func ClassifyPrompt(entity, etype string, aspects []string, memories []string) string {
	sugg := aspectSuggestions[etype]
	if sugg == nil {
		sugg = aspectSuggestions["unknown"]
	}
	var b strings.Builder
	fmt.Fprintf(&b, `You organise a software project's memory about one entity into aspects.
Entity: %s
Entity type: %s
Existing aspects: %s
Suggested aspects for this type: %s

For each numbered memory below, give the aspect of the entity it is about (reuse an existing or suggested aspect when one fits; otherwise a short new one, set "new": true), and its kind: "constraint" for a decision, rule or requirement that must be respected, "attribute" for any other fact. When the memory states one value of the entity ("runs Postgres 16", "port 5433"), also give "attribute" (its name, e.g. "postgres version") and "value" ("16").
Answer with a JSON array only: [{"i": 1, "aspect": "...", "kind": "attribute", "new": false, "attribute": "...", "value": "..."}]

Memories:
`, promptField(entity), promptField(etype), strings.Join(aspects, ", "), strings.Join(sugg, ", "))
	for i, m := range memories {
		fmt.Fprintf(&b, "%d. %s\n", i+1, promptField(truncate(m, 500)))
	}
	return b.String()
}

func promptField(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ClassifyItem is one memory's classification in a model's answer.
type ClassifyItem struct {
	I         int    `json:"i"` // 1-based index into the memories
	Aspect    string `json:"aspect"`
	Kind      string `json:"kind"`
	Attribute string `json:"attribute,omitempty"`
	Value     string `json:"value,omitempty"`
}

// ParseClassification reads a model's classification of n memories:
// think blocks and fences are stripped, the array is found in prose (bare,
// or under "items", "classifications" or "results"), and each entry is
// checked: an index outside 1..n or seen before is dropped, the aspect is
// canonicalized (lower case, letters, digits, spaces and dashes, at most
// 40 characters) and required, an unknown kind is an attribute, the
// attribute's name and value are canonicalized and bounded (dropped
// together when either is unusable). It never panics; warnings say what
// was dropped.
func ParseClassification(raw string, n int) ([]ClassifyItem, []string) {
	var warns []string
	if len(raw) > 1<<20 {
		raw = raw[:1<<20]
	}
	s := strings.TrimSpace(fenceOrThink().ReplaceAllString(strings.ToValidUTF8(raw, ""), ""))
	var entries []map[string]json.RawMessage
	if i := strings.IndexAny(s, "[{"); i >= 0 {
		s = s[i:]
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var any0 json.RawMessage
	if err := dec.Decode(&any0); err != nil {
		return nil, []string{"classification: no JSON in the answer"}
	}
	if err := json.Unmarshal(any0, &entries); err != nil {
		var obj map[string]json.RawMessage
		if json.Unmarshal(any0, &obj) != nil {
			return nil, []string{"classification: the answer is not an array of objects"}
		}
		for _, k := range []string{"items", "classifications", "results", "memories"} {
			if v, ok := obj[k]; ok && json.Unmarshal(v, &entries) == nil {
				break
			}
		}
		if entries == nil {
			if _, ok := obj["i"]; ok {
				entries = []map[string]json.RawMessage{obj}
			} else {
				return nil, []string{"classification: no array of classifications in the answer"}
			}
		}
	}
	seen := map[int]bool{}
	var out []ClassifyItem
	for k, e := range entries {
		i, ok := jsonInt(e["i"])
		if !ok || i < 1 || i > n {
			warns = append(warns, fmt.Sprintf("classification: entry %d has no valid index", k+1))
			continue
		}
		if seen[i] {
			warns = append(warns, fmt.Sprintf("classification: memory %d classified twice; the first answer kept", i))
			continue
		}
		aspect := canonicalLabel(jsonString(e["aspect"]), aspectMaxChars)
		if aspect == "" {
			warns = append(warns, fmt.Sprintf("classification: memory %d has no usable aspect", i))
			continue
		}
		seen[i] = true
		it := ClassifyItem{I: i, Aspect: aspect, Kind: entities.KindAttribute}
		switch strings.ToLower(strings.TrimSpace(jsonString(e["kind"]))) {
		case entities.KindConstraint:
			it.Kind = entities.KindConstraint
		case entities.KindAttribute, "":
		default:
			warns = append(warns, fmt.Sprintf("classification: memory %d has an unknown kind; read as an attribute", i))
		}
		name := canonicalLabel(jsonString(e["attribute"]), attrNameMaxChars)
		value := entities.Canonical(jsonString(e["value"]))
		if name != "" && value != "" && utf8.RuneCountInString(value) <= attrValueMaxRune && !strings.ContainsFunc(value, unicode.IsControl) {
			it.Attribute, it.Value = name, value
		}
		out = append(out, it)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].I < out[b].I })
	return out, warns
}

// canonicalLabel lower-cases s and keeps letters, digits, spaces, dots
// and dashes, with single spaces, at most max runes ("" when it is too
// long or empty).
func canonicalLabel(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '.' || r == '_':
			return unicode.ToLower(r)
		case unicode.IsSpace(r) || r == '/':
			return ' '
		}
		return -1
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if s == "" || utf8.RuneCountInString(s) > max {
		return ""
	}
	return s
}

func jsonString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func jsonInt(raw json.RawMessage) (int, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil && f == float64(int(f)) {
		return int(f), true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		i, err := strconv.Atoi(strings.TrimSpace(s))
		return i, err == nil
	}
	return 0, false
}
