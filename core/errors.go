package core

import (
	"errors"
	"fmt"

	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/jobs"
)

// Error is a failure with meaning for the caller: a stable machine-readable
// code, a message naming the problem, optional extra fields the API merges
// into its JSON body, and the cause, if any. It carries no transport
// status: the HTTP edge maps codes to statuses in one place
// (httpapi.StatusOf), so the domain never chooses one.
type Error struct {
	Code    string
	Message string
	Extra   map[string]any
	Err     error // the underlying cause, for errors.Is/As; never shown
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches any *Error with the same code, so errors.Is(err, ErrVersionConflict) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Codes shared by the API, CLI and TUI.
const (
	CodeInvalidJSON           = "invalid_json"
	CodeInvalidRequest        = "invalid_request"
	CodeTooLarge              = "payload_too_large"
	CodeNotFound              = "not_found"
	CodeVersionConflict       = "version_conflict"
	CodeDeleted               = "deleted"
	CodeAlreadyDeleted        = "already_deleted"
	CodeNotDeleted            = "not_deleted"
	CodeDuplicate             = "duplicate_content_hash"
	CodePinned                = "pinned_requires_force"
	CodeForceDenied           = "autonomous_force_denied"
	CodeExpired               = "retention_expired"
	CodeFrozen                = "mutations_frozen"
	CodeConfirmRequired       = "confirm_required"
	CodeVectorsUnavailable    = "vectors_unavailable"
	CodeMaintenanceInProgress = "maintenance_in_progress"
	CodeJobNotRetryable       = "job_not_retryable"
	CodeMethodNotAllowed      = "method_not_allowed"
	CodeInternal              = "internal"
)

// Sentinels for errors.Is.
var (
	ErrNotFound        = &Error{Code: CodeNotFound, Message: "not found"}
	ErrVersionConflict = &Error{Code: CodeVersionConflict, Message: "version conflict"}
	ErrFrozen          = &Error{Code: CodeFrozen, Message: "Mutations are frozen (kill switch active)"}
)

// Invalid reports a bad request field.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidRequest,
		Message: fmt.Sprintf(format, args...), Extra: map[string]any{"field": field}}
}

// invalidField is evolution's bad field as an Error.
func invalidField(e *evolution.FieldError) *Error {
	return Invalid(e.Field, "%s", e.Message)
}

// AsError returns err as an *Error, wrapping anything else as internal.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if fe, ok := errors.AsType[*evolution.FieldError](err); ok {
		return invalidField(fe)
	}
	if f := storageFault(err); f != nil {
		return f
	}
	if q := queueRefusal(err); q != nil {
		return q
	}
	return &Error{Code: CodeInternal, Message: "internal error", Err: err}
}

// queueRefusal gives the refusals of the job queue (core/jobs, below core)
// their codes; nil for any other error.
func queueRefusal(err error) *Error {
	var inv *jobs.InvalidError
	var nr *jobs.NotRetryableError
	switch {
	case errors.As(err, &inv):
		e := Invalid(inv.Field, "%s", inv.Message)
		e.Err = err
		return e
	case errors.As(err, &nr):
		return &Error{Code: CodeJobNotRetryable, Message: nr.Error(), Err: err}
	case errors.Is(err, jobs.ErrNotFound):
		return &Error{Code: CodeNotFound, Message: ErrNotFound.Message, Err: err}
	}
	return nil
}
