package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/storage"
)

// ErrBudgetSpent is returned for a prompt the heuristic cannot answer
// once the day's model budget is spent.
var ErrBudgetSpent = errors.New("the daily model budget (pipeline_v2.daily_token_budget) is spent")

// Budgeted is a model the user chose, metered: each call's tokens are
// counted per day and provider (storage.ModelUsage, shown by the pipeline
// status and `cairn status`), and once the day's tokens reach Budget the
// model is not called again that day. cairn's own extraction and decision
// prompts are then answered by the heuristic provider (the learning goes
// on without a model); other prompts fail with ErrBudgetSpent. The first
// call past the budget each day is reported through Spent: never silent.
// Usage is written after each call, in its own transaction (never around
// the call). Safe for concurrent use.
type Budgeted struct {
	Model  extract.LLM
	DB     *storage.DB
	Budget int64 // tokens a day, prompt and answer
	Now    func() time.Time
	// Spent is called once a day, when the budget is found spent.
	Spent func(day string, used, budget int64)

	heuristic Heuristic
	mu        sync.Mutex
	day       string // the day used counts
	used      int64  // tokens used on day (loaded from the store once a day)
	loaded    bool
	reported  bool
}

// Name is the model's name, or the heuristic's with why while the budget
// is spent.
func (b *Budgeted) Name() string {
	if b.spentToday(context.Background()) {
		return ProviderHeuristic + " (daily budget of " + b.Model.Name() + " spent)"
	}
	return b.Model.Name()
}

// LexicalDecisions is the heuristic's while the budget is spent (its
// decisions compare words; keyword candidates suffice), else the model's.
func (b *Budgeted) LexicalDecisions() bool {
	if b.spentToday(context.Background()) {
		return true
	}
	lx, ok := b.Model.(extract.LexicalDecider)
	return ok && lx.LexicalDecisions()
}

func (b *Budgeted) today() string { return b.Now().UTC().Format(time.DateOnly) }

// spentToday reports whether today's tokens reached the budget (reading
// them from the store at the first call of a day).
func (b *Budgeted) spentToday(ctx context.Context) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	day := b.today()
	if day != b.day || !b.loaded {
		b.day, b.used, b.loaded, b.reported = day, 0, false, false
		if n, err := storage.ModelTokensOn(ctx, b.DB.Reader(), day); err == nil {
			b.used, b.loaded = n, true
		}
	}
	return b.used >= b.Budget
}

// Generate calls the model within the day's budget; past it, the
// heuristic answers (see Budgeted).
func (b *Budgeted) Generate(ctx context.Context, prompt string, opts extract.GenerateOptions) (string, error) {
	if b.spentToday(ctx) {
		return b.fallback(ctx, prompt, opts)
	}
	var out string
	var u Usage
	var err error
	if m, ok := b.Model.(UsageReporter); ok {
		out, u, err = m.GenerateUsage(ctx, prompt, opts)
	} else {
		out, err = b.Model.Generate(ctx, prompt, opts)
		u = usageOf(prompt, out, 0, 0)
	}
	rec := storage.ModelUsage{Day: b.today(), Provider: b.Model.Name(), Calls: 1, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
	if err != nil {
		rec.Failed = 1
	}
	b.record(rec)
	return out, err
}

// fallback answers a prompt once the budget is spent: cairn's extraction
// and decision prompts by the heuristic, others not at all.
func (b *Budgeted) fallback(ctx context.Context, prompt string, opts extract.GenerateOptions) (string, error) {
	b.report()
	_, isExtraction := extract.ExtractionPromptInput(prompt)
	_, _, isDecision := extract.DecisionPromptInput(prompt)
	if !isExtraction && !isDecision {
		return "", &Error{Provider: b.Model.Name(), URL: "budget", Msg: "not called", Err: ErrBudgetSpent}
	}
	b.record(storage.ModelUsage{Day: b.today(), Provider: b.Model.Name(), Fallbacks: 1})
	return b.heuristic.Generate(ctx, prompt, opts)
}

// record adds a call's usage to the day's, in the store and in memory.
func (b *Budgeted) record(u storage.ModelUsage) {
	b.mu.Lock()
	if u.Day == b.day {
		b.used += u.InputTokens + u.OutputTokens
	}
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.DB.WriteTx(ctx, func(tx storage.Tx) error { return storage.AddModelUsage(ctx, tx, u) })
}

// report calls Spent once a day.
func (b *Budgeted) report() {
	b.mu.Lock()
	if b.reported {
		b.mu.Unlock()
		return
	}
	b.reported = true
	day, used := b.day, b.used
	b.mu.Unlock()
	if b.Spent != nil {
		b.Spent(day, used, b.Budget)
	}
}

// String describes the budget for logs.
func (b *Budgeted) String() string {
	return fmt.Sprintf("%s within %d tokens a day", b.Model.Name(), b.Budget)
}
