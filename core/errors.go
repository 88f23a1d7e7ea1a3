package core

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is a failure with meaning for the caller: an HTTP status, a stable
// machine-readable code, a message naming the problem, and optional extra
// fields that the API merges into its JSON body.
type Error struct {
	Status  int
	Code    string
	Message string
	Extra   map[string]any
}

func (e *Error) Error() string { return e.Message }

// Is matches any *Error with the same code, so errors.Is(err, ErrVersionConflict) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Codes shared by the API, CLI and TUI.
const (
	CodeInvalidJSON     = "invalid_json"
	CodeInvalidRequest  = "invalid_request"
	CodeTooLarge        = "payload_too_large"
	CodeNotFound        = "not_found"
	CodeVersionConflict = "version_conflict"
	CodeDeleted         = "deleted"
	CodeAlreadyDeleted  = "already_deleted"
	CodeNotDeleted      = "not_deleted"
	CodeDuplicate       = "duplicate_content_hash"
	CodePinned          = "pinned_requires_force"
	CodeForceDenied     = "autonomous_force_denied"
	CodeExpired         = "retention_expired"
	CodeFrozen          = "mutations_frozen"
	CodeConfirmRequired = "confirm_required"
	CodeInternal        = "internal"
)

// Sentinels for errors.Is.
var (
	ErrNotFound        = &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: "not found"}
	ErrVersionConflict = &Error{Status: http.StatusConflict, Code: CodeVersionConflict, Message: "version conflict"}
	ErrFrozen          = &Error{Status: http.StatusServiceUnavailable, Code: CodeFrozen, Message: "Mutations are frozen (kill switch active)"}
)

// invalid reports a bad request field.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidRequest,
		Message: fmt.Sprintf(format, args...), Extra: map[string]any{"field": field}}
}

// AsError returns err as an *Error, wrapping anything else as internal.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal error"}
}
