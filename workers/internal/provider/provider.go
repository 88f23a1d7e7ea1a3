// Package provider holds what cairn's model providers (workers/embedding
// and workers/llm) share: their error type and the reading of a server's
// error answer.
package provider

import (
	"encoding/json"
	"strings"
	"unicode"
)

// Error is returned when a provider call fails. Its message names the
// provider, the endpoint URL (without any password) or binary, and what
// went wrong; it never contains an API key.
type Error struct {
	Provider   string // provider name
	URL        string // endpoint URL (password redacted) or the CLI binary
	StatusCode int    // HTTP status, or 0 when there was no answer
	Msg        string // what went wrong
	Err        error  // underlying error: context, net, JSON or exec errors
}

func (e *Error) Error() string {
	s := e.Provider + " at " + e.URL + ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// ServerMessage extracts the message of an error answer (Ollama's
// {"error": "..."}, OpenAI's and llama.cpp's {"error": {"message", "type"}},
// vLLM's {"message"}, {"detail"}), or else the text itself, cut to 300
// characters, with secret replaced by "[redacted]".
func ServerMessage(body []byte, secret string) string {
	msg := ErrorMessage(body)
	if msg == "" {
		msg = strings.Map(func(c rune) rune {
			if unicode.IsControl(c) {
				return ' '
			}
			return c
		}, strings.TrimSpace(string(body)))
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
	}
	if msg == "" {
		msg = "(empty body)"
	}
	if secret != "" {
		msg = strings.ReplaceAll(msg, secret, "[redacted]")
	}
	return msg
}

// ErrorMessage returns the message of a JSON error body, or "".
func ErrorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	if len(v.Error) > 0 {
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return s
		}
		var o struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		if json.Unmarshal(v.Error, &o) == nil && o.Message != "" {
			if o.Type != "" {
				return o.Message + " [" + o.Type + "]"
			}
			return o.Message
		}
	}
	if v.Message != "" {
		return v.Message
	}
	var s string
	if len(v.Detail) > 0 && json.Unmarshal(v.Detail, &s) == nil && s != "" {
		return s
	}
	return ""
}
