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

// CodexKeyEnv is the variable the Codex provider of CodexConfig reads its
// API key from (any value does).
const CodexKeyEnv = "MODELTEST_API_KEY"

// CodexEnv is the environment CodexConfig needs.
func CodexEnv() []string { return []string{CodexKeyEnv + "=sk-modeltest"} }

// CodexConfig is the start of a ~/.codex/config.toml that points Codex CLI
// at a scripted Responses server (modeltest.NewResponses) at modelURL: a
// provider of its own (Codex 0.169 only speaks wire_api "responses"), no
// approvals (headless), a read-only sandbox. Tables (MCP servers, hook
// trust) go after it.
func CodexConfig(modelURL string) string {
	return `model = "gpt-scripted"
model_provider = "modeltest"
approval_policy = "never"
sandbox_mode = "read-only"

[model_providers.modeltest]
name = "modeltest"
base_url = "` + modelURL + `/v1"
wire_api = "responses"
env_key = "` + CodexKeyEnv + `"
`
}

// GeminiEnv is the environment that points Gemini CLI at a scripted Gemini
// API (modeltest.NewGemini) at modelURL: an API key (any value), the base
// URL, and workspace trust (headless Gemini CLI refuses, with exit 55, a
// folder it does not trust, and runs no hooks there).
func GeminiEnv(modelURL string) []string {
	return []string{
		"GEMINI_API_KEY=modeltest-key",
		"GOOGLE_GEMINI_BASE_URL=" + modelURL,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
	}
}

// GeminiSettings is the security part of ~/.gemini/settings.json that
// GeminiEnv needs: the API key auth (the base URL alone flips it to a
// gateway auth) and no telemetry.
const GeminiSettings = `{"security":{"auth":{"selectedType":"gemini-api-key"}},"telemetry":{"enabled":false},"privacy":{"usageStatisticsEnabled":false}}`

// OpenCodeEnv is the environment that keeps OpenCode offline: no update
// check, no models.dev fetch.
func OpenCodeEnv() []string {
	return []string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1"}
}

// OpenCodeConfig is an opencode.json (global: $XDG_CONFIG_HOME/opencode/)
// that points OpenCode at a scripted chat completions server
// (modeltest.NewChat) at modelURL through its bundled openai-compatible
// provider, as the model of the agent and of the title generator. mcp is
// the "mcp" object, or "" for none.
func OpenCodeConfig(modelURL, mcp string) string {
	if mcp == "" {
		mcp = "{}"
	}
	return `{
  "$schema": "https://opencode.ai/config.json",
  "model": "modeltest/chat-scripted",
  "small_model": "modeltest/chat-scripted",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "modeltest": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "modeltest",
      "options": {"baseURL": "` + modelURL + `/v1", "apiKey": "sk-modeltest"},
      "models": {"chat-scripted": {"name": "chat-scripted", "tool_call": true, "limit": {"context": 128000, "output": 4096}}}
    }
  },
  "mcp": ` + mcp + `
}
`
}
