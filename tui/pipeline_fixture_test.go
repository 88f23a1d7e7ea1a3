package tui

import "github.com/cairnmem/cairn/tui/internal/tuitest"

// Fixed ids of the pipeline fixture, so renders are the same on every run.
const (
	jobDone     = tuitest.JobDone
	jobDead     = tuitest.JobDead
	jobBacking  = tuitest.JobBacking
	jobStale    = tuitest.JobStale
	jobPending  = tuitest.JobPending
	propUpdate  = tuitest.PropUpdate
	propDelete  = tuitest.PropDelete
	idDeploy    = tuitest.IDDeploy
	idFlakyTest = tuitest.IDFlakyTest
)

// pipelineFixture fills the queue and the proposals (tuitest.PipelineFixture).
func pipelineFixture(h *harness) {
	h.t.Helper()
	tuitest.PipelineFixture(h.t, h.svc, h.db)
}
