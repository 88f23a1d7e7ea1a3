package wire

// ModelUsage is one day's use of one model provider: a copy of the
// storage row (core/ops converts it).
type ModelUsage struct {
	Day          string `json:"day"` // YYYY-MM-DD, UTC
	Provider     string `json:"provider"`
	Calls        int64  `json:"calls"`
	Failed       int64  `json:"failed"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	// Fallbacks are the prompts the built-in heuristic answered because
	// the day's token budget was spent.
	Fallbacks int64 `json:"fallbacks"`
}

// ModelUsageReport is a chosen model's use over the last week, as GET
// /api/pipeline/status reports it: every provider's calls and tokens per
// day (newest first), the daily token budget and today's spending.
type ModelUsageReport struct {
	ModelUsage       []ModelUsage `json:"modelUsage"`
	DailyTokenBudget int64        `json:"dailyTokenBudget"`
	TokensToday      int64        `json:"tokensToday"`
	BudgetSpent      bool         `json:"budgetSpent"`
}
