package ops

import (
	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/vectors"
)

// Ops runs cairn's operations on a Service: diagnostics (with their
// cache), repairs (with their single-flight and rate state) and the
// maintenance loop's memory. One Ops serves a Service: the composition root
// (core/app) builds it once and every caller shares it.
type Ops struct {
	svc    *core.Service
	vec    *vectors.Vectors
	jobs   *jobs.Queue
	repair repairState
	maint  maintenanceState
	diag   diagCache
}

// New returns the Ops of svc, with its store's vectors and job queue.
func New(svc *core.Service, vec *vectors.Vectors, q *jobs.Queue) *Ops {
	return &Ops{svc: svc, vec: vec, jobs: q}
}
