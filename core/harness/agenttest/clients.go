//go:build integration

package agenttest

import (
	"os"
	"path/filepath"

	"github.com/cairnmem/cairn/core/harness/codex"
)

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

// CodexHookTrust is the config.toml tables that make Codex run the hooks of
// hooksJSON (the content of the hooks.json at hooksPath, an absolute path)
// without --dangerously-bypass-hook-trust: Codex discovers hooks but runs
// only those whose trusted_hash matches. Per handler, the key is
// PATH:EVENT_IN_SNAKE_CASE:GROUP:HANDLER and the hash the SHA-256 of the
// handler's canonical JSON: keys sorted, no spaces, the timeout in seconds
// (600 when unset), async false unless set, the group's matcher.
func CodexHookTrust(hooksPath string, hooksJSON []byte) (string, error) {
	entries, err := codex.HookTrust(hooksPath, hooksJSON)
	if err != nil {
		return "", err
	}
	return codex.TrustTOML(entries), nil
}

// OpenCodeSkipDependencyInstall marks the OpenCode config folder dir as
// having its dependencies installed. At every start OpenCode runs an npm
// install of @opencode-ai/plugin into each config folder that lacks
// node_modules, or whose package-lock.json does not list what its
// package.json does: through the registry on each fresh home (it stalls
// for a minute when the registry is unreachable). A plugin that imports
// nothing from that package, like cairn's and the tests' probe, needs none
// of it; this writes the files that make the check pass.
func OpenCodeSkipDependencyInstall(dir string) error {
	deps := `{"@opencode-ai/plugin":"` + OpenCode.Version + `"}`
	for name, data := range map[string]string{
		"package.json":      `{"dependencies":` + deps + "}\n",
		"package-lock.json": `{"lockfileVersion":3,"packages":{"":{"dependencies":` + deps + "}}}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	return os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755)
}
