package core

import "github.com/cairnmem/cairn/core/analytics"

// Analytics returns the service's analytics.
func (s *Service) Analytics() *analytics.Analytics { return s.analytics }
