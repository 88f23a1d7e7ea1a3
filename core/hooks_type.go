package core

// Hooks runs the agent hook flows of a Service (session start, each
// prompt, session end, remember and recall, compaction) and keeps the
// sessions they record.
type Hooks struct {
	svc *Service
}
