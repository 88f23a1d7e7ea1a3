package core

import (
	"errors"

	"github.com/cairnmem/cairn/core/analytics"
)

// RecordRefusal puts a refused mutation in the error ring (stage mutation):
// code is analytics.CodeMutationConflict for a version conflict or
// analytics.CodeMutationScopeDenied for a write outside a token's scope.
// Refusals are the caller's to handle, but an operator should see them.
func (s *Service) RecordRefusal(code, detail string, actor Actor, memoryID string) {
	s.analytics.RecordError(analytics.ErrorEvent{Stage: analytics.StageMutation, Code: code, Message: detail,
		MemoryID: memoryID, Actor: actor.Name, RequestID: actor.RequestID})
}

// noteConflict records err when it is a version conflict on memoryID.
func (s *Service) noteConflict(err error, memoryID string, actor Actor) {
	var e *Error
	if errors.As(err, &e) && e.Code == CodeVersionConflict {
		s.RecordRefusal(analytics.CodeMutationConflict, e.Message, actor, memoryID)
	}
}
