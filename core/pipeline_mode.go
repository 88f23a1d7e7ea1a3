package core

// PipelineMode names the pipeline's effective mode.
func (s *Service) PipelineMode() string {
	p := s.cfg.Pipeline
	switch {
	case !p.Enabled:
		return "disabled"
	case s.MutationsFrozen():
		return "frozen"
	case p.ShadowMode:
		return "shadow"
	}
	return "controlled-write"
}
