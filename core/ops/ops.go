package ops

import "github.com/cairnmem/cairn/core"

// Ops runs cairn's operations on a Service: diagnostics (with their
// cache), repairs (with their single-flight and rate state) and the
// maintenance loop's memory. One Ops serves a Service: the composition root
// (core/app) builds it once and every caller shares it.
type Ops struct {
	svc    *core.Service
	repair repairState
	maint  maintenanceState
	diag   diagCache
}

// New returns the Ops of svc.
func New(svc *core.Service) *Ops { return &Ops{svc: svc} }
