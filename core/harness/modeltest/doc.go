// Package modeltest serves scripted language-model APIs on loopback, for
// tests that drive the real coding-agent CLIs (Claude Code, Codex CLI,
// Gemini CLI, OpenCode) without a model or a network.
//
// There is one server per wire API those CLIs speak:
//
//	anthropic.go  Anthropic Messages (POST /v1/messages, SSE): Claude Code
//	responses.go  OpenAI Responses (POST /v1/responses, SSE): Codex CLI
//	gemini.go     Gemini generateContent and streamGenerateContent: Gemini CLI
//	chat.go       OpenAI chat completions (POST /v1/chat/completions): OpenCode
//
// Every server logs each request it gets (method, path, body) and answers
// the model calls with a Script: a function from the call, read into an
// API-neutral Call (its messages, tool calls, tool results and the tools
// offered), to a Reply, which is text or tool calls. Steps scripts the
// usual agent turn: a tool call, then another after its result, then text.
// Tests then ask the log whether a marker reached the model
// (Server.Find, Call.Contains).
package modeltest
