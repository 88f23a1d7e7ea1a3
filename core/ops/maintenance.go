package ops

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/wire"
)

// The maintenance loop (docs/design/operations.md, "Maintenance"):
// diagnostics → recommendations → observe (log them) or execute (run each
// through Repair as the daemon), with a halt tracker: an action that runs
// MaintenanceHaltAfter times in a row without improving the composite
// score is halted (still recommended, no longer executed) until cairn
// restarts.

// MaintenanceActor is who the maintenance worker's repairs are recorded as.
var MaintenanceActor = core.Actor{Name: "maintenance-worker", Type: core.ActorDaemon}

// MaintenanceHaltAfter non-improving runs halt an action.
const MaintenanceHaltAfter = 3

// DuplicateRatioMax: more exact duplicates than this share of live rows
// recommends a deduplicate.
const DuplicateRatioMax = 0.05

// Recommendation is one repair the diagnostics call for (the API's type,
// core/wire).
type Recommendation = wire.Recommendation

// MaintenanceStep is one executed recommendation and what it did.
type MaintenanceStep struct {
	Action   string        `json:"action"`
	Result   *RepairResult `json:"result,omitempty"`
	Error    string        `json:"error,omitempty"`
	Before   float64       `json:"before"`
	After    float64       `json:"after"`
	Improved bool          `json:"improved"`
}

// MaintenanceRun is one pass of the maintenance loop.
type MaintenanceRun struct {
	At              string            `json:"at"`
	Mode            string            `json:"mode"` // observe or execute
	Before          HealthScore       `json:"before"`
	After           HealthScore       `json:"after"`
	Recommendations []Recommendation  `json:"recommendations"`
	Steps           []MaintenanceStep `json:"steps"`
}

// MaintenanceState is what the loop remembers between runs.
type MaintenanceState struct {
	LastRun *MaintenanceRun `json:"lastRun,omitempty"`
	Runs    int             `json:"runs"`
	// NonImproving counts each action's consecutive runs that did not
	// improve the composite; Halted lists actions at the limit.
	NonImproving map[string]int `json:"nonImproving"`
	Halted       []string       `json:"halted"`
}

type maintenanceState struct {
	mu           sync.Mutex
	dup          *DedupStats // cached for DedupStatsTTL
	dupAt        time.Time
	running      bool
	last         *MaintenanceRun
	runs         int
	nonImproving map[string]int
}

// Recommend turns a diagnostics report (and the exact-duplicate count,
// nil when unknown) into repair recommendations, in the order they should
// run.
func Recommend(r *DiagnosticsReport, dup *DedupStats) []Recommendation {
	var out []Recommendation
	trig := func(domain, signal string) *Signal {
		d := r.Domain(domain)
		if d == nil {
			return nil
		}
		for i := range d.Signals {
			if d.Signals[i].Name == signal && d.Signals[i].Triggered {
				return &d.Signals[i]
			}
		}
		return nil
	}
	add := func(action string, opts RepairOptions, domain, signal string) {
		if sg := trig(domain, signal); sg != nil {
			out = append(out, Recommendation{Action: action, Options: opts, Domain: domain, Signal: signal, Reason: sg.Message})
		}
	}
	add(RepairReleaseLeases, RepairOptions{}, DomainQueue, "stale_leases")
	add(RepairRequeueDead, RepairOptions{}, DomainQueue, "dead_rate")
	add(RepairCheckFTS, RepairOptions{Repair: true}, DomainIndex, "fts_mismatch")
	add(RepairReEmbed, RepairOptions{}, DomainIndex, "embedding_coverage")
	add(RepairRetentionSweep, RepairOptions{}, DomainStorage, "tombstone_ratio")
	if dup != nil && dup.TotalActive > 0 {
		if ratio := float64(dup.ExactExcess) / float64(dup.TotalActive); ratio > DuplicateRatioMax {
			out = append(out, Recommendation{Action: RepairDeduplicate, Domain: DomainStorage, Signal: "duplicate_ratio",
				Reason: fmt.Sprintf("%d of %d live memories are exact duplicates (%.1f%% > %.0f%%)", dup.ExactExcess, dup.TotalActive, ratio*100, DuplicateRatioMax*100)})
		}
	}
	return out
}

// MaintenanceRecommendations are the repairs the current diagnostics call
// for, with the halt tracker's verdicts.
func (s *Ops) MaintenanceRecommendations(ctx context.Context) ([]Recommendation, error) {
	rep, err := s.Diagnostics(ctx)
	if err != nil {
		return nil, err
	}
	dup, err := s.cachedDedupStats(ctx)
	if err != nil {
		return nil, err
	}
	recs := Recommend(rep, dup)
	s.maint.mu.Lock()
	for i := range recs {
		recs[i].Halted = s.maint.nonImproving[recs[i].Action] >= MaintenanceHaltAfter
	}
	s.maint.mu.Unlock()
	if recs == nil {
		recs = []Recommendation{}
	}
	return recs, nil
}

// DedupStatsTTL: the exact-duplicate count scans every live row (about
// 150 ms at 100k memories), so recommendations reuse it this long.
const DedupStatsTTL = 30 * time.Second

func (s *Ops) forgetDedupStats() {
	s.maint.mu.Lock()
	s.maint.dup = nil
	s.maint.mu.Unlock()
}

func (s *Ops) cachedDedupStats(ctx context.Context) (*DedupStats, error) {
	now := s.svc.Now()
	s.maint.mu.Lock()
	if d := s.maint.dup; d != nil && !now.Before(s.maint.dupAt) && now.Sub(s.maint.dupAt) < DedupStatsTTL {
		s.maint.mu.Unlock()
		return d, nil
	}
	s.maint.mu.Unlock()
	d, err := s.DedupStats(ctx)
	if err != nil {
		return nil, err
	}
	s.maint.mu.Lock()
	s.maint.dup, s.maint.dupAt = d, now
	s.maint.mu.Unlock()
	return d, nil
}

// MaintenanceStatus reports the loop's memory: the last run and halted
// actions.
func (s *Ops) MaintenanceStatus() MaintenanceState {
	s.maint.mu.Lock()
	defer s.maint.mu.Unlock()
	st := MaintenanceState{LastRun: s.maint.last, Runs: s.maint.runs, NonImproving: map[string]int{}, Halted: []string{}}
	for a, n := range s.maint.nonImproving {
		st.NonImproving[a] = n
		if n >= MaintenanceHaltAfter {
			st.Halted = append(st.Halted, a)
		}
	}
	return st
}

// RunMaintenance runs one pass: fresh diagnostics, recommendations, and in
// execute mode each recommendation that is not halted through Repair as
// actor (the worker passes MaintenanceActor, so the policy gate applies),
// with the composite measured before and after each. Two passes never run
// At once (409 maintenance_in_progress).
func (s *Ops) RunMaintenance(ctx context.Context, mode string, actor core.Actor) (*MaintenanceRun, error) {
	if mode != "observe" && mode != "execute" {
		return nil, core.Invalid("mode", "mode must be observe or execute")
	}
	s.maint.mu.Lock()
	if s.maint.running {
		s.maint.mu.Unlock()
		return nil, &core.Error{Code: core.CodeMaintenanceInProgress, Message: "a maintenance pass is already running"}
	}
	s.maint.running = true
	if s.maint.nonImproving == nil {
		s.maint.nonImproving = map[string]int{}
	}
	s.maint.mu.Unlock()
	defer func() {
		s.maint.mu.Lock()
		s.maint.running = false
		s.maint.mu.Unlock()
	}()

	rep, err := s.ComputeDiagnostics(ctx)
	if err != nil {
		return nil, err
	}
	dup, err := s.DedupStats(ctx)
	if err != nil {
		return nil, err
	}
	s.maint.mu.Lock()
	s.maint.dup, s.maint.dupAt = dup, s.svc.Now()
	s.maint.mu.Unlock()
	run := &MaintenanceRun{At: s.svc.Timestamp(), Mode: mode, Before: rep.Composite, After: rep.Composite,
		Recommendations: Recommend(rep, dup), Steps: []MaintenanceStep{}}
	if run.Recommendations == nil {
		run.Recommendations = []Recommendation{}
	}
	score := rep.Composite.Score
	for i := range run.Recommendations {
		rec := &run.Recommendations[i]
		s.maint.mu.Lock()
		rec.Halted = s.maint.nonImproving[rec.Action] >= MaintenanceHaltAfter
		s.maint.mu.Unlock()
		if mode != "execute" || rec.Halted {
			continue
		}
		step := MaintenanceStep{Action: rec.Action, Before: score}
		opts := rec.Options
		opts.Reason = "maintenance: " + rec.Reason
		res, rerr := s.Repair(ctx, rec.Action, actor, opts)
		step.Result = res
		if rerr != nil {
			step.Error = rerr.Error()
		}
		after, err := s.ComputeDiagnostics(ctx)
		if err != nil {
			return nil, err
		}
		step.After = after.Composite.Score
		step.Improved = step.After > step.Before+1e-9
		score = step.After
		run.After = after.Composite
		s.maint.mu.Lock()
		if step.Improved {
			delete(s.maint.nonImproving, rec.Action)
		} else {
			s.maint.nonImproving[rec.Action]++
			if s.maint.nonImproving[rec.Action] == MaintenanceHaltAfter {
				s.svc.Logger().Warn("maintenance action halted: it did not improve health in a row", "action", rec.Action, "runs", MaintenanceHaltAfter)
			}
		}
		s.maint.mu.Unlock()
		run.Steps = append(run.Steps, step)
	}
	for _, rec := range run.Recommendations {
		s.svc.Logger().Info("maintenance recommendation", "mode", mode, "action", rec.Action, "halted", rec.Halted, "reason", rec.Reason)
	}
	s.maint.mu.Lock()
	s.maint.last = run
	s.maint.runs++
	s.maint.mu.Unlock()
	return run, nil
}

// MaintenanceInterval is how often the maintenance worker runs a pass.
func (s *Ops) MaintenanceInterval() time.Duration {
	if d := s.svc.Config().Maintenance.Interval.D(); d > 0 {
		return d
	}
	return config.DefaultMaintenanceInterval
}
