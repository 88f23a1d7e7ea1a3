package evolution

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/cairnmem/cairn/storage"
	"github.com/google/uuid"
)

// Tx is what the write path lends evolution inside one of its write
// transactions, bound to the actor of the change: the transaction, its
// time, and the write path's own ways to write history, soft-delete and
// recover a memory. Core builds it (core.Service.EvolutionTx); evolution
// never writes a memory's lifecycle any other way.
type Tx struct {
	storage.Tx
	// Stamp is the transaction's time in the store's format.
	Stamp string
	// SupersedeAttributes is memory.supersede_attributes: statements the
	// linker reads supersede the values they replace.
	SupersedeAttributes bool
	// Log receives evolution's debug logs.
	Log *slog.Logger
	// Record writes a history event on memory memoryID by the actor.
	Record func(ctx context.Context, memoryID, event, reason string, meta map[string]any) error
	// RecordPipeline writes a history event on memory memoryID by the
	// pipeline, whoever the actor is: the contradiction detector's review
	// proposals are the pipeline's.
	RecordPipeline func(ctx context.Context, memoryID, event, reason string, meta map[string]any) error
	// Forget soft-deletes memory id through the write path (with its
	// checks: a pinned memory needs force, a changed one is refused when
	// ifVersion is set). status is "deleted", or a refusal's code with its
	// error beside it; it is "" when the store failed (err).
	Forget func(ctx context.Context, id, reason string, ifVersion *int64, force bool) (status string, err error)
	// Restore recovers memory id through the write path (its checks: a
	// live memory holding its content or idempotency key keeps it
	// deleted), clearing its successor link and leaving its attributes as
	// they are; meta goes on the "recovered" event. It reports whether it
	// came back; err is a failure of the store.
	Restore func(ctx context.Context, id, reason string, meta map[string]any) (bool, error)
}

// FieldError is a bad value of a request field. Core reports it as
// invalid_request naming the field (core.AsError).
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Message }

// invalid is a FieldError with a formatted message.
func invalid(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// newID returns a new time-ordered UUID (v7), as core.NewID does.
func newID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

func clamp01(x float64) float64 { return max(0, min(1, x)) }
