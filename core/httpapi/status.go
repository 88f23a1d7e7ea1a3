package httpapi

import (
	"net/http"

	"github.com/cairnmem/cairn/core/pipeline"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/connectors"
)

// statusByCode is the one place an error code becomes an HTTP status.
var statusByCode = map[string]int{
	core.CodeInvalidJSON:            http.StatusBadRequest,
	core.CodeInvalidRequest:         http.StatusBadRequest,
	core.CodeConfirmRequired:        http.StatusBadRequest,
	auth.CodeUnauthorized:           http.StatusUnauthorized,
	auth.CodeForbidden:              http.StatusForbidden,
	core.CodeForceDenied:            http.StatusForbidden,
	core.CodeNotFound:               http.StatusNotFound,
	ops.CodeUnknownRepair:           http.StatusNotFound,
	core.CodeMethodNotAllowed:       http.StatusMethodNotAllowed,
	core.CodeVersionConflict:        http.StatusConflict,
	core.CodeDeleted:                http.StatusConflict,
	core.CodeAlreadyDeleted:         http.StatusConflict,
	core.CodeNotDeleted:             http.StatusConflict,
	core.CodeDuplicate:              http.StatusConflict,
	core.CodePinned:                 http.StatusConflict,
	core.CodeExpired:                http.StatusConflict,
	pipeline.CodeProposalNotPending: http.StatusConflict,
	ops.CodeRepairInProgress:        http.StatusConflict,
	core.CodeMaintenanceInProgress:  http.StatusConflict,
	core.CodeJobNotRetryable:        http.StatusConflict,
	core.CodeTooLarge:               http.StatusRequestEntityTooLarge,
	CodeForbiddenOrigin:             http.StatusForbidden,
	connectors.CodeRootNotAllowed:   http.StatusForbidden,
	CodeForbiddenHost:               http.StatusForbidden,
	CodeUnsupportedMediaType:        http.StatusUnsupportedMediaType,
	CodeRequestTimeout:              http.StatusRequestTimeout,
	CodeHeaderTooLarge:              http.StatusRequestHeaderFieldsTooLarge,
	auth.CodeRateLimited:            http.StatusTooManyRequests,
	ops.CodeRepairFrozen:            http.StatusTooManyRequests,
	ops.CodeRepairDisabled:          http.StatusTooManyRequests,
	ops.CodeRepairCooldown:          http.StatusTooManyRequests,
	ops.CodeRepairBudget:            http.StatusTooManyRequests,
	core.CodeInternal:               http.StatusInternalServerError,
	core.CodeFrozen:                 http.StatusServiceUnavailable,
	core.CodeStorageFull:            http.StatusInsufficientStorage,
	core.CodeStorageIO:              http.StatusInsufficientStorage,
	core.CodeStorageCorrupt:         http.StatusServiceUnavailable,
	core.CodeStorageReadOnly:        http.StatusServiceUnavailable,
	core.CodeStorageUnreachable:     http.StatusServiceUnavailable,
	core.CodeStorageBehind:          http.StatusServiceUnavailable,
	core.CodeNotOnPostgres:          http.StatusNotImplemented,
	core.CodeVectorsUnavailable:     http.StatusServiceUnavailable,
	CodeOverloaded:                  http.StatusServiceUnavailable,
}

// StatusOf returns the HTTP status the API answers an error code with; a
// code it does not know is a server error.
func StatusOf(code string) int {
	if s, ok := statusByCode[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}
