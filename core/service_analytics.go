package core

// Analytics returns the service's analytics.
func (s *Service) Analytics() *Analytics { return s.analytics }
