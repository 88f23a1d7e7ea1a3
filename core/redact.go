package core

import (
	"sync/atomic"
)

func (s *Service) redactionCounter() *atomic.Int64 { return &s.redactions }

// Redact removes secrets from text and counts them in the service's
// diagnostics.
func (s *Service) Redact(text string) string {
	out, n := Redact(text)
	if n > 0 {
		s.redactionCounter().Add(int64(n))
	}
	return out
}

// RedactionCount is how many secrets this service has redacted since it
// started.
func (s *Service) RedactionCount() int64 { return s.redactionCounter().Load() }
