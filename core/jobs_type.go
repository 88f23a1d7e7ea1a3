package core

// Jobs is a Service's job queue: extraction, session and document jobs
// are enqueued, leased by the workers, completed or failed with backoff,
// and listed, counted and retried by people.
type Jobs struct {
	svc *Service
}
