package pipeline

import (
	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/ranker"
	"github.com/cairnmem/cairn/core/vectors"
)

// Pipeline is the extraction pipeline of a Service: it turns a memory (or
// a session transcript) into facts, decides what each fact does to the
// store (add, update, delete, nothing), records the decision as a proposal
// and applies it or holds it for review, and writes the knowledge graph.
// One Pipeline serves a Service: the composition root (core/app) builds it.
type Pipeline struct {
	svc      *core.Service
	vec      *vectors.Vectors
	jobs     *jobs.Queue
	feedback *ranker.Feedback // follows a model's session score (score_job.go)
}

// New returns the Pipeline of svc, with its store's vectors, job queue
// and aspect feedback.
func New(svc *core.Service, vec *vectors.Vectors, q *jobs.Queue, feedback *ranker.Feedback) *Pipeline {
	return &Pipeline{svc: svc, vec: vec, jobs: q, feedback: feedback}
}
