package ops

import (
	"fmt"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core"
)

// Codes of repair denials. Policy denials are 429 (as Signet answers them);
// a second concurrent run of the same action is 409.
const (
	CodeRepairFrozen     = "repair_frozen"
	CodeRepairDisabled   = "repair_autonomous_disabled"
	CodeRepairCooldown   = "repair_cooldown"
	CodeRepairBudget     = "repair_budget_exhausted"
	CodeRepairInProgress = "repair_in_progress"
	CodeUnknownRepair    = "unknown_repair"
)

// repairState is the Service's in-memory repair bookkeeping: which actions
// run now (single flight) and the agent limiter's windows.
type repairState struct {
	mu      sync.Mutex
	running map[string]bool
	limits  map[string]*limitWindow
}

// limitWindow is one action's limiter state: the last run and a fixed
// one-hour window opened by the first run in it.
type limitWindow struct {
	lastRun   time.Time
	count     int
	hourReset time.Time
}

// acquire marks action as running, or fails with 409 repair_in_progress
// when it already is. release must be called once the run ends.
func (r *repairState) acquire(action string) (release func(), err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running[action] {
		return nil, &core.Error{Code: CodeRepairInProgress,
			Message: fmt.Sprintf("repair %s is already in progress", action), Extra: map[string]any{"action": action}}
	}
	if r.running == nil {
		r.running = map[string]bool{}
	}
	r.running[action] = true
	return func() {
		r.mu.Lock()
		delete(r.running, action)
		r.mu.Unlock()
	}, nil
}

// actorClass sorts actor types for the gate: operator (operator, sdk),
// agent (agent, harness) and daemon (daemon, pipeline).
func actorClass(t string) string {
	switch t {
	case core.ActorAgent, core.ActorHarness:
		return core.ActorAgent
	case core.ActorDaemon, core.ActorPipeline:
		return core.ActorDaemon
	}
	return core.ActorOperator
}

// repairPolicy is an action's cooldown and hourly budget for agents.
func (s *Ops) repairPolicy(action string) (cooldown time.Duration, budget int) {
	m := s.svc.Config().Maintenance
	switch action {
	case RepairReEmbed:
		return m.ReembedCooldown.D(), m.ReembedHourlyBudget
	case RepairCheckFTS:
		return m.FTSCooldown.D(), m.FTSHourlyBudget
	case RepairDeduplicate:
		return m.DedupCooldown.D(), m.DedupHourlyBudget
	case RepairRetentionSweep:
		return m.RetentionCooldown.D(), m.RetentionHourlyBudget
	}
	return m.RequeueCooldown.D(), m.RequeueHourlyBudget
}

// checkRepairPolicy applies maintenance.autonomous_frozen and
// maintenance.autonomous_enabled:
//
//   - frozen denies agent and daemon callers; operators may still repair
//     (the freeze stops autonomy, not the person at the keyboard);
//   - agent and daemon callers need autonomous_enabled.
func (s *Ops) checkRepairPolicy(action string, actor core.Actor) error {
	class := actorClass(actor.Type)
	if class == core.ActorOperator {
		return nil
	}
	m := s.svc.Config().Maintenance
	if m.AutonomousFrozen {
		return &core.Error{Code: CodeRepairFrozen,
			Message: fmt.Sprintf("repair %s denied: maintenance.autonomous_frozen is set (only operators may repair)", action)}
	}
	if !m.AutonomousEnabled {
		return &core.Error{Code: CodeRepairDisabled,
			Message: fmt.Sprintf("repair %s denied: %s callers cannot run repairs while maintenance.autonomous_enabled is false", action, class)}
	}
	return nil
}

// limitRepair is the agent limiter: within the action's cooldown after its
// last run it denies with "cooldown active, Nms remaining"; once the hour's
// runs reach the budget it denies with "hourly budget exhausted (N runs/hr)".
// The hour is a fixed window opened by its first run. Operators and daemon
// callers are never limited. An allowed run is counted at once.
func (s *Ops) limitRepair(action string, actor core.Actor) error {
	if actorClass(actor.Type) != core.ActorAgent {
		return nil
	}
	cooldown, budget := s.repairPolicy(action)
	now := s.svc.Now()
	r := &s.repair
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.limits == nil {
		r.limits = map[string]*limitWindow{}
	}
	w := r.limits[action]
	if w == nil {
		w = &limitWindow{}
		r.limits[action] = w
	}
	if !w.lastRun.IsZero() {
		if left := w.lastRun.Add(cooldown).Sub(now); left > 0 {
			return &core.Error{Code: CodeRepairCooldown,
				Message: fmt.Sprintf("cooldown active, %dms remaining", left.Milliseconds()),
				Extra:   map[string]any{"action": action, "retryAfterMs": left.Milliseconds()}}
		}
	}
	if w.hourReset.IsZero() || !now.Before(w.hourReset) {
		w.count, w.hourReset = 0, now.Add(time.Hour)
	}
	if w.count >= budget {
		return &core.Error{Code: CodeRepairBudget,
			Message: fmt.Sprintf("hourly budget exhausted (%d runs/hr)", budget),
			Extra:   map[string]any{"action": action, "retryAfterMs": w.hourReset.Sub(now).Milliseconds()}}
	}
	w.count++
	w.lastRun = now
	return nil
}
