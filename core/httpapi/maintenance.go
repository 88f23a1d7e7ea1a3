package httpapi

import (
	"net/http"
)

// maintenance serves GET /api/maintenance: the configuration, the
// recommendations of the current diagnostics and the loop's memory.
func (a *API) maintenance(w http.ResponseWriter, r *http.Request) {
	recs, err := a.app.Ops.MaintenanceRecommendations(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	m := a.svc.Config().Maintenance
	writeJSON(w, http.StatusOK, map[string]any{
		"enabled": m.AutonomousEnabled, "frozen": m.AutonomousFrozen, "mode": m.Mode,
		"interval": m.Interval.D().String(), "recommendations": recs, "state": a.app.Ops.MaintenanceStatus(),
	})
}

// runMaintenance serves POST /api/maintenance/run {mode}: one pass now, as
// the caller (an operator is not throttled; an agent needs autonomy).
func (a *API) runMaintenance(w http.ResponseWriter, r *http.Request) {
	b, e := readOptionalBody(w, r, a.svc.Config().Server.MaxBodyBytes)
	if e != nil {
		writeError(w, e)
		return
	}
	mode, _, e := b.str("mode")
	if e != nil {
		writeError(w, e)
		return
	}
	if mode == "" {
		mode = "observe"
	}
	run, err := a.app.Ops.RunMaintenance(r.Context(), mode, actorOf(r, b))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, run)
}
