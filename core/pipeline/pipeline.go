package pipeline

import "github.com/cairnmem/cairn/core"

// Pipeline is the extraction pipeline of a Service: it turns a memory (or
// a session transcript) into facts, decides what each fact does to the
// store (add, update, delete, nothing), records the decision as a proposal
// and applies it or holds it for review, and writes the knowledge graph.
// One Pipeline serves a Service: get it with For.
type Pipeline struct {
	svc *core.Service
}

type pipelineKey struct{}

// For returns the Pipeline of svc.
func For(svc *core.Service) *Pipeline {
	return svc.Attached(pipelineKey{}, func() any { return &Pipeline{svc: svc} }).(*Pipeline)
}
