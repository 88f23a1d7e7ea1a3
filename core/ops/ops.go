package ops

import "github.com/cairnmem/cairn/core"

// Ops runs cairn's operations on a Service: diagnostics (with their
// cache), repairs (with their single-flight and rate state) and the
// maintenance loop's memory. One Ops serves a Service: get it with For.
type Ops struct {
	svc    *core.Service
	repair repairState
	maint  maintenanceState
	diag   diagCache
}

type opsKey struct{}

// For returns the Ops of svc, the one every caller of that service shares.
func For(svc *core.Service) *Ops {
	return svc.Attached(opsKey{}, func() any { return &Ops{svc: svc} }).(*Ops)
}
