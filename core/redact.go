package core

import (
	"sync/atomic"

	"github.com/cairnmem/cairn/core/text"
)

func (s *Service) redactionCounter() *atomic.Int64 { return &s.redactions }

// Redact removes secrets from text and counts them in the service's
// diagnostics.
func (s *Service) Redact(body string) string {
	out, n := text.Redact(body)
	if n > 0 {
		s.redactionCounter().Add(int64(n))
	}
	return out
}

// RedactionCount is how many secrets this service has redacted since it
// started.
func (s *Service) RedactionCount() int64 { return s.redactionCounter().Load() }
