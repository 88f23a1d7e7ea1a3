//go:build integration

package agenttest

// ClaudeEnv is the environment that points Claude Code at a scripted
// Anthropic Messages server (modeltest.NewAnthropic) at modelURL: an API
// key that needs no login, and no traffic anywhere else (telemetry,
// update checks, error reports).
func ClaudeEnv(modelURL string) []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + modelURL,
		"ANTHROPIC_API_KEY=sk-modeltest",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
	}
}
