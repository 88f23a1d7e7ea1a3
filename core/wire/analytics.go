package wire

// LatencySummary summarises one operation's recent latencies in
// milliseconds (core/analytics.LatencySummary). Percentile p is the sorted
// sample at index ceil(p/100·n)−1; the mean is rounded to the microsecond.
type LatencySummary struct {
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
}

// ErrorEvent is one entry of the error ring (core/analytics.ErrorEvent).
type ErrorEvent struct {
	Timestamp string `json:"timestamp"`
	Stage     string `json:"stage"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"requestId,omitempty"`
	MemoryID  string `json:"memoryId,omitempty"`
	Actor     string `json:"actor,omitempty"`
}
