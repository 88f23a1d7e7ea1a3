package httpapi

import (
	"net/http"
	"strings"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core"
)

func (a *API) repairList(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"actions": ops.RepairActions()})
}

func (a *API) repairEmbeddingGaps(w http.ResponseWriter, r *http.Request) {
	g, err := a.app.Ops.EmbeddingGaps(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, g)
}

func (a *API) repairDedupStats(w http.ResponseWriter, r *http.Request) {
	st, err := a.app.Ops.DedupStats(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// repairRun runs POST /api/repair/{action}. The body is optional: batchSize,
// dryRun, repair, fullSweep, jobId, reason (reason also from the
// X-Cairn-Reason or X-Signet-Reason header; the body wins). The answer is
// 200 {action,success,affected,message[,dryRun]} whenever the action ran;
// success false says it could not do its job. Gate denials are 429, a run
// already in progress 409.
func (a *API) repairRun(w http.ResponseWriter, r *http.Request) {
	action := r.PathValue("action")
	if !ops.KnownRepair(action) {
		a.fail(w, r, &core.Error{Code: ops.CodeUnknownRepair, Message: "unknown repair action " + quote(action),
			Extra: map[string]any{"field": "action"}})
		return
	}
	b, e := readOptionalBody(w, r, a.svc.Config().Server.MaxBodyBytes)
	if e != nil {
		a.fail(w, r, e)
		return
	}
	opts := ops.RepairOptions{Reason: strings.TrimSpace(firstHeader(r, "X-Cairn-Reason", "X-Signet-Reason"))}
	if b != nil {
		n, e := b.integer("batchSize", "batch_size")
		if e != nil {
			a.fail(w, r, e)
			return
		}
		if n != nil {
			if *n < 1 || *n > ops.MaxRepairBatch {
				_, name := b.field("batchSize", "batch_size")
				a.fail(w, r, core.Invalid(name, "%s must be between 1 and %d", name, ops.MaxRepairBatch))
				return
			}
			opts.BatchSize = int(*n)
		}
		for _, f := range []struct {
			dst   *bool
			names []string
		}{
			{&opts.DryRun, []string{"dryRun", "dry_run"}},
			{&opts.Repair, []string{"repair"}},
			{&opts.FullSweep, []string{"fullSweep", "full_sweep"}},
		} {
			v, e := b.boolean(f.names...)
			if e != nil {
				a.fail(w, r, e)
				return
			}
			if v != nil {
				*f.dst = *v
			}
		}
		for _, f := range []struct {
			dst   *string
			names []string
		}{
			{&opts.JobID, []string{"jobId", "job_id"}},
			{&opts.Reason, []string{"reason"}},
		} {
			v, ok, e := b.str(f.names...)
			if e != nil {
				a.fail(w, r, e)
				return
			}
			if ok && strings.TrimSpace(v) != "" {
				*f.dst = strings.TrimSpace(v)
			}
		}
	}
	res, err := a.app.Ops.Repair(r.Context(), action, actorOf(r, b), opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
