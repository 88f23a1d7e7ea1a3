package httpapi

import (
	"net/http"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/graph"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/core/pipeline"

	"github.com/cairnmem/cairn/storage"
)

// listProposals serves GET /api/proposals?state=&action=&source_memory_id=&job_id=&decided=&q=&sort=&limit=&offset=:
// a page and how many proposals the filter selects (total).
func (a *API) listProposals(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, e := queryInt(r, "limit", 50, 1, 1000)
	if e != nil {
		writeError(w, e)
		return
	}
	offset, e := queryInt(r, "offset", 0, 0, 1<<30)
	if e != nil {
		writeError(w, e)
		return
	}
	decided, _ := parseBool(q.Get("decided"))
	f := pipeline.ProposalFilter{State: q.Get("state"), Action: q.Get("action"),
		SourceMemoryID: q.Get("source_memory_id"), JobID: q.Get("job_id"), Decided: decided, Text: q.Get("q"), Sort: q.Get("sort"), Offset: offset}
	ps, err := a.app.Pipeline.ListProposals(r.Context(), f, limit)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	total, err := a.app.Pipeline.CountMatching(r.Context(), f)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"proposals": ps, "count": len(ps), "total": total})
}

func (a *API) getProposal(w http.ResponseWriter, r *http.Request) {
	p, err := a.app.Pipeline.GetProposal(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

func (a *API) decideProposal(w http.ResponseWriter, r *http.Request, approve bool) {
	b, e := readBody(w, r, a.svc.Config().Server.MaxBodyBytes)
	if e != nil {
		writeError(w, e)
		return
	}
	reason, _, e := b.str("reason")
	if e != nil {
		writeError(w, e)
		return
	}
	actor := actorOf(r, b)
	var p *storage.Proposal
	var err error
	if approve {
		p, err = a.app.Pipeline.ApproveProposal(r.Context(), r.PathValue("id"), actor, reason)
	} else {
		p, err = a.app.Pipeline.RejectProposal(r.Context(), r.PathValue("id"), actor, reason)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "proposal": p})
}

func (a *API) approveProposal(w http.ResponseWriter, r *http.Request) { a.decideProposal(w, r, true) }
func (a *API) rejectProposal(w http.ResponseWriter, r *http.Request)  { a.decideProposal(w, r, false) }

// reopenProposal serves POST /api/proposals/{id}/reopen: a decided
// proposal back to pending (the undo of a decision; the caller reverts
// what an approval applied first).
func (a *API) reopenProposal(w http.ResponseWriter, r *http.Request) {
	b, e := readBody(w, r, a.svc.Config().Server.MaxBodyBytes)
	if e != nil {
		writeError(w, e)
		return
	}
	reason, _, e := b.str("reason")
	if e != nil {
		writeError(w, e)
		return
	}
	p, err := a.app.Pipeline.ReopenProposal(r.Context(), r.PathValue("id"), actorOf(r, b), reason)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "proposal": p})
}

func (a *API) getJob(w http.ResponseWriter, r *http.Request) {
	j, err := a.app.Jobs.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, j)
}

func (a *API) pipelineStatus(w http.ResponseWriter, r *http.Request) {
	st, err := a.app.Ops.PipelineStatus(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	// The learned ranker: trained on how many sessions, its NDCG@10 and
	// the baseline's, active or not and why.
	if st["predictor"], err = a.app.Predictor.Status(r.Context()); err != nil {
		a.fail(w, r, err)
		return
	}
	st["aspect_feedback"] = a.app.Feedback.Status() // core/ranker
	writeJSON(w, http.StatusOK, st)
}

// graphEntities serves GET /api/graph/entities?q=&limit=: the knowledge
// graph's entities whose canonical name contains q, most mentioned first;
// with memory=ID, the entities that memory mentions.
func (a *API) graphEntities(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, e := queryInt(r, "limit", 50, 1, 1000)
	if e != nil {
		writeError(w, e)
		return
	}
	var ents []graph.Entity
	var err error
	if id := q.Get("memory"); id != "" {
		ents, err = a.app.Graph.MemoryEntities(r.Context(), id)
	} else {
		ents, err = a.app.Graph.Entities(r.Context(), q.Get("q"), limit)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"entities": ents, "count": len(ents)})
}

// graphEntity serves GET /api/graph/entities/{id}?relation=&project=&limit=:
// one entity with its relations (of one type with relation=), the
// neighbours they reach, and the memories that mention it.
func (a *API) graphEntity(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, e := queryInt(r, "limit", 50, 1, 500)
	if e != nil {
		writeError(w, e)
		return
	}
	if n := len(q.Get("relation")); n > 64 {
		writeError(w, core.Invalid("relation", "relation is %d bytes; a relation type has at most 64", n))
		return
	}
	d, err := a.app.Graph.Entity(r.Context(), r.PathValue("id"), graph.Query{
		RelationType: q.Get("relation"), Project: q.Get("project"), Limit: limit})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// learned serves GET /api/learned (what was learned from sessions since
// the person last looked, ?limit= of them newest first) and POST
// /api/learned/review (keep ids, mark seen through a time).
func (a *API) learned(w http.ResponseWriter, r *http.Request) {
	limit, e := queryInt(r, "limit", 100, 0, 1000)
	var in ops.LearnedReview
	if e == nil && r.Method == http.MethodPost {
		var b body
		if b, e = readBody(w, r, a.svc.Config().Server.MaxBodyBytes); e == nil {
			if in.Keep, e = b.strList("keep"); e == nil {
				in.SeenThrough, _, e = b.str("seenThrough")
			}
		}
	}
	if e != nil {
		writeError(w, e)
		return
	}
	var out *ops.Learned
	var err error
	if r.Method == http.MethodPost {
		out, err = a.app.Ops.ReviewLearned(r.Context(), in, limit)
	} else {
		out, err = a.app.Ops.Learned(r.Context(), limit)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
