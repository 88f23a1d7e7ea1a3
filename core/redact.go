package core

import (
	"sync"
	"sync/atomic"

	"github.com/cairnmem/cairn/core/text"
)

// Redactor removes secrets from what cairn stores (text.Redact's rules) and
// counts what it removed, for diagnostics. Its zero value is ready to use;
// a Service has one (Service.Redactor), which every path that stores text
// goes through. The methods for fields around content are in fields.go.
type Redactor struct {
	count atomic.Int64 // secrets redacted since start

	memo     sync.Map     // short field → fieldMemo (Field)
	memoSize atomic.Int32 // entries in memo
}

// Text removes secrets from text and counts them.
func (r *Redactor) Text(body string) string {
	out, n := text.Redact(body)
	if n > 0 {
		r.count.Add(int64(n))
	}
	return out
}

// Count is how many secrets r has redacted since it was made.
func (r *Redactor) Count() int64 { return r.count.Load() }

// Redactor returns the service's redactor.
func (s *Service) Redactor() *Redactor { return &s.redact }

// Redact removes secrets from text and counts them in the service's
// diagnostics (Redactor().Text).
func (s *Service) Redact(body string) string { return s.redact.Text(body) }
