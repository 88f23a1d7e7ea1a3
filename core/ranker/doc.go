// Package ranker owns what cairn learns from sessions about ranking the
// memories it injects: the learned pairwise ranker (Predictor: training,
// evaluation, status, the model's order) and aspect feedback (Feedback:
// applied when a session is scored, revised when a model rescores it, the
// ranking factors and the counters since start).
//
// It needs no Service: the store, its config section, the clock and a
// logger, given to NewPredictor and NewFeedback by the composition root
// (core/app). It may import storage and core/config only; it must never
// import core or anything above it. core/sessions (scoring a session),
// core/hooks (the features and the order of their candidates),
// core/pipeline (a model's session score), the workers (training) and the
// HTTP API (status) use it.
package ranker
