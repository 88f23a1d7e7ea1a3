package pane

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/graph"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/core/sessions"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/core/wire"
)

// Terminal safety. Everything the UI shows came from outside (an agent, an
// import, a connector's file, a fetched page), and a terminal obeys the
// escape sequences in what it prints: OSC 52 writes the clipboard, OSC 8
// plants a link, CSI 2J clears the screen. So every value the panes get
// from the client is sanitized once, as it arrives, before any pane styles
// it (sanitizing styled output would strip the UI's own colours): Safe
// wraps the client, and the panes never see a raw stored value.
//
// Multi-line text (content, diffs, reasons, payloads, errors) goes through
// text.Display and keeps its line breaks; every other string is a
// one-line field (tags, type, who, ids, project, titles) and goes through
// text.DisplayLine, which also shows invisible formatting characters as
// <U+XXXX> so two look-alike names never look the same. A field this file
// does not name is treated as one line: a new field is safe by default.

// multiLine names the string fields (at any depth) whose text keeps its
// line breaks.
var multiLine = map[string]bool{
	"Content": true, "OldContent": true, "NewContent": true, "Transcript": true,
	"Fact": true, "Reason": true, "DecisionReason": true, "BlockedReason": true, "SkippedReason": true,
	"Why": true, "Message": true, "Note": true, "Error": true, "LastError": true,
	"Payload": true, "Result": true, "Value": true, "Summary": true,
}

// Clean returns a deep copy of v with every exported string sanitized for
// the terminal (see above); values that need no change are shared. It
// copies rather than edits because an in-process client may return values
// the service shares (the cached diagnostics report).
func Clean[T any](v T) T {
	out := clean(reflect.ValueOf(&v).Elem(), false)
	return out.Interface().(T)
}

// CleanText is text.Display: multi-line text made safe for the terminal.
func CleanText(s string) string { return text.Display(s) }

// CleanLine is text.DisplayLine: a one-line field made safe.
func CleanLine(s string) string { return text.DisplayLine(s) }

var errorType = reflect.TypeFor[error]()

func clean(v reflect.Value, multi bool) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		c := text.DisplayLine(s)
		if multi {
			c = text.Display(s)
		}
		if c == s {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.SetString(c)
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(clean(v.Elem(), multi))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v) // unexported fields come along as they are
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() {
				out.Field(i).Set(clean(v.Field(i), multiLine[f.Name]))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() || v.Type().Elem().Kind() == reflect.Uint8 {
			return v // bytes (raw JSON) are not shown
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(clean(v.Index(i), multi))
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			out.Index(i).Set(clean(v.Index(i), multi))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(clean(it.Key(), false), clean(it.Value(), multi))
		}
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		if v.Type() == errorType {
			out.Set(reflect.ValueOf(SafeError(v.Interface().(error))))
			return out
		}
		out.Set(clean(v.Elem(), multi))
		return out
	}
	return v
}

// SafeError returns err with its text sanitized as one line. A *core.Error
// in its chain comes back as a copy with a clean Message (panes read the
// message and the code), wrapping err, so errors.Is and errors.As still
// find everything err holds.
func SafeError(err error) error {
	if err == nil {
		return nil
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		c := *ce
		c.Message = text.DisplayLine(ce.Message)
		c.Extra = Clean(ce.Extra)
		c.Err = err
		return &c
	}
	return &safeError{err: err, text: text.DisplayLine(err.Error())}
}

type safeError struct {
	err  error
	text string
}

func (e *safeError) Error() string { return e.text }
func (e *safeError) Unwrap() error { return e.err }

// Safe wraps c so every value and error it returns is sanitized for the
// terminal. What the writes send passes through unchanged. tui.New wraps the client it is
// given; the live change stream reads the raw client (Unwrap).
func Safe(c client.Client) client.Client {
	if c == nil {
		return nil
	}
	if s, ok := c.(*safeClient); ok {
		return s
	}
	return &safeClient{c: c}
}

// Unwrap returns the client Safe wrapped (c itself when it is not one).
func Unwrap(c client.Client) client.Client {
	if s, ok := c.(*safeClient); ok {
		return s.c
	}
	return c
}

// safeClient sanitizes what the client c returns. It does not embed the
// interface: a method added to client.Client must be written here too, or
// the build fails, so no new read can pass raw values to the panes.
type safeClient struct {
	c client.Client
}

func ret[T any](v T, err error) (T, error) { return Clean(v), SafeError(err) }

func (s *safeClient) Describe() string { return text.DisplayLine(s.c.Describe()) }

func (s *safeClient) Addr() string { return s.c.Addr() }

func (s *safeClient) Close() error { return s.c.Close() }

func (s *safeClient) Health(ctx context.Context) error { return SafeError(s.c.Health(ctx)) }

func (s *safeClient) Status(ctx context.Context) (*wire.Status, error) {
	return ret(s.c.Status(ctx))
}

func (s *safeClient) Remember(ctx context.Context, in core.RememberInput) (*wire.Remembered, error) {
	return ret(s.c.Remember(ctx, in))
}

func (s *safeClient) Recall(ctx context.Context, in core.RecallInput) (*core.RecallResult, error) {
	return ret(s.c.Recall(ctx, in))
}

func (s *safeClient) Get(ctx context.Context, id string, includeDeleted bool) (*core.Memory, error) {
	return ret(s.c.Get(ctx, id, includeDeleted))
}

// MemoryStamp is only compared, never shown.
func (s *safeClient) MemoryStamp(ctx context.Context, id string) (string, error) {
	return s.c.MemoryStamp(ctx, id)
}

func (s *safeClient) List(ctx context.Context, f core.MemoryFilter, limit, offset int) (*core.ListResult, error) {
	return ret(s.c.List(ctx, f, limit, offset))
}

func (s *safeClient) Recent(ctx context.Context, f core.MemoryFilter, limit int) ([]*core.Memory, error) {
	return ret(s.c.Recent(ctx, f, limit))
}

func (s *safeClient) Page(ctx context.Context, f core.MemoryFilter, p core.PageQuery, count bool) (*core.MemoryPage, error) {
	return ret(s.c.Page(ctx, f, p, count))
}

func (s *safeClient) Modify(ctx context.Context, p core.Patch) (*core.MutationResult, error) {
	return ret(s.c.Modify(ctx, p))
}

func (s *safeClient) Forget(ctx context.Context, in core.ForgetInput) (*core.MutationResult, error) {
	return ret(s.c.Forget(ctx, in))
}

func (s *safeClient) ForgetBatch(ctx context.Context, in core.BatchForgetInput) (*core.BatchForgetResult, error) {
	return ret(s.c.ForgetBatch(ctx, in))
}

func (s *safeClient) Recover(ctx context.Context, in core.RecoverInput) (*core.MutationResult, error) {
	return ret(s.c.Recover(ctx, in))
}

func (s *safeClient) MemoryHistory(ctx context.Context, id string, limit int) ([]*wire.HistoryEntry, error) {
	return ret(s.c.MemoryHistory(ctx, id, limit))
}

func (s *safeClient) History(ctx context.Context, f core.HistoryFilter, limit int) ([]*wire.HistoryEntry, error) {
	return ret(s.c.History(ctx, f, limit))
}

func (s *safeClient) SearchHistory(ctx context.Context, f core.HistorySearch, limit int) ([]*wire.HistoryEntry, error) {
	return ret(s.c.SearchHistory(ctx, f, limit))
}

func (s *safeClient) HistoryPage(ctx context.Context, f core.HistorySearch, p core.PageQuery, count bool) (*core.HistoryPage, error) {
	return ret(s.c.HistoryPage(ctx, f, p, count))
}

// Export hands out raw export lines (JSON, escaped): the panes do not
// show them.
func (s *safeClient) Export(ctx context.Context, f core.MemoryFilter, fn func(json.RawMessage) error) error {
	return SafeError(s.c.Export(ctx, f, fn))
}

func (s *safeClient) Import(ctx context.Context, lines []transfer.ImportLine, raw map[int][]byte, progress func(done int)) (*transfer.ImportResult, error) {
	return ret(s.c.Import(ctx, lines, raw, progress))
}

func (s *safeClient) Jobs(ctx context.Context, f wire.JobFilter, limit int) (*wire.JobsPage, error) {
	return ret(s.c.Jobs(ctx, f, limit))
}

func (s *safeClient) Job(ctx context.Context, id string) (*wire.Job, error) {
	return ret(s.c.Job(ctx, id))
}

func (s *safeClient) RetryJob(ctx context.Context, id string) (*wire.Job, error) {
	return ret(s.c.RetryJob(ctx, id))
}

func (s *safeClient) Proposals(ctx context.Context, f wire.ProposalFilter, limit int) (*wire.ProposalsPage, error) {
	return ret(s.c.Proposals(ctx, f, limit))
}

func (s *safeClient) Proposal(ctx context.Context, id string) (*wire.Proposal, error) {
	return ret(s.c.Proposal(ctx, id))
}

func (s *safeClient) ApproveProposal(ctx context.Context, id, reason string) (*wire.Proposal, error) {
	return ret(s.c.ApproveProposal(ctx, id, reason))
}

func (s *safeClient) RejectProposal(ctx context.Context, id, reason string) (*wire.Proposal, error) {
	return ret(s.c.RejectProposal(ctx, id, reason))
}

func (s *safeClient) ReopenProposal(ctx context.Context, id, reason string) (*wire.Proposal, error) {
	return ret(s.c.ReopenProposal(ctx, id, reason))
}

func (s *safeClient) Diagnostics(ctx context.Context, fresh bool) (*wire.DiagnosticsReport, error) {
	return ret(s.c.Diagnostics(ctx, fresh))
}

func (s *safeClient) Repair(ctx context.Context, action string, opts wire.RepairOptions) (*wire.RepairResult, error) {
	return ret(s.c.Repair(ctx, action, opts))
}

func (s *safeClient) Maintenance(ctx context.Context) ([]wire.Recommendation, error) {
	return ret(s.c.Maintenance(ctx))
}

func (s *safeClient) Latency(ctx context.Context) (map[string]wire.LatencySummary, error) {
	return ret(s.c.Latency(ctx))
}

func (s *safeClient) LatencySamples(ctx context.Context, op string) ([]float64, error) {
	v, err := s.c.LatencySamples(ctx, op)
	return v, SafeError(err)
}

func (s *safeClient) RecentErrors(ctx context.Context, limit int) ([]wire.ErrorEvent, error) {
	return ret(s.c.RecentErrors(ctx, limit))
}

func (s *safeClient) Connectors(ctx context.Context) ([]*wire.Connector, error) {
	return ret(s.c.Connectors(ctx))
}

func (s *safeClient) SyncConnector(ctx context.Context, id string) (*wire.SyncResult, error) {
	return ret(s.c.SyncConnector(ctx, id))
}

func (s *safeClient) MemoryEntities(ctx context.Context, memoryID string) ([]graph.Entity, error) {
	return ret(s.c.MemoryEntities(ctx, memoryID))
}

func (s *safeClient) GraphEntity(ctx context.Context, id string, q graph.Query) (*graph.Detail, error) {
	return ret(s.c.GraphEntity(ctx, id, q))
}

func (s *safeClient) Session(ctx context.Context, key string) (*sessions.Info, error) {
	return ret(s.c.Session(ctx, key))
}

func (s *safeClient) Learned(ctx context.Context, limit int) (*ops.Learned, error) {
	return ret(s.c.Learned(ctx, limit))
}

func (s *safeClient) ReviewLearned(ctx context.Context, in ops.LearnedReview, limit int) (*ops.Learned, error) {
	return ret(s.c.ReviewLearned(ctx, in, limit))
}

func (s *safeClient) ModelUsage(ctx context.Context) (*wire.ModelUsageReport, error) {
	return ret(s.c.ModelUsage(ctx))
}
