package documents

import "github.com/cairnmem/cairn/core"

// Documents ingests documents (text or a fetched URL) into memories: each is
// chunked, and every chunk is written through the Service's one write path
// as a memory linked to its document. One Documents serves a Service: get it
// with For.
type Documents struct {
	svc *core.Service
}

type documentsKey struct{}

// For returns the Documents of svc.
func For(svc *core.Service) *Documents {
	return svc.Attached(documentsKey{}, func() any { return &Documents{svc: svc} }).(*Documents)
}
