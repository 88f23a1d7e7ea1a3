// Package ops runs cairn's operations on a core.Service: diagnostics (six
// domains, a composite score, silent-failure signals, a short cache),
// repairs (gated, rate-limited and single-flight per action, each audited
// in history), the maintenance loop's recommendations and halts, the
// retention sweep, and the queue and pipeline status that /health and
// /api/status report. One Ops serves a Service (with its store's
// core/vectors and core/jobs); core/app builds it.
package ops
