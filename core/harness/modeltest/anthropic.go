package modeltest

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// NewAnthropic starts a scripted Anthropic Messages API, as Claude Code
// calls it with ANTHROPIC_BASE_URL set to URL: POST /v1/messages (SSE when
// the request streams, else one JSON message), and minimal answers to
// POST /v1/messages/count_tokens and GET /v1/models.
func NewAnthropic(script Script) *Server { return newServer(anthropicAPI{}, script) }

type anthropicAPI struct{}

// AnthropicModel is the model GET /v1/models lists.
const AnthropicModel = "claude-scripted"

func (anthropicAPI) serve(s *Server, w http.ResponseWriter, r *Request) {
	path, _, _ := strings.Cut(r.Path, "?")
	switch {
	case r.Method == http.MethodPost && path == "/v1/messages":
		anthropicMessages(s, w, r)
	case r.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": approxTokens(r.Body)})
	case r.Method == http.MethodGet && path == "/v1/models":
		m := anthropicModelInfo(AnthropicModel)
		writeJSON(w, http.StatusOK, map[string]any{"data": []any{m}, "has_more": false, "first_id": AnthropicModel, "last_id": AnthropicModel})
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/v1/models/"):
		writeJSON(w, http.StatusOK, anthropicModelInfo(strings.TrimPrefix(path, "/v1/models/")))
	default:
		anthropicError(w, http.StatusNotFound, "not_found_error", "not found: "+r.Method+" "+path)
	}
}

func anthropicModelInfo(id string) map[string]any {
	return map[string]any{"type": "model", "id": id, "display_name": id, "created_at": time.Unix(0, 0).UTC().Format(time.RFC3339)}
}

func anthropicError(w http.ResponseWriter, code int, typ, msg string) {
	writeJSON(w, code, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

// approxTokens is a token count good enough for a CLI's budget checks:
// about four bytes a token.
func approxTokens(body []byte) int { return len(body)/4 + 1 }

type anthropicRequest struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// parseAnthropic reads a Messages request into a Call.
func parseAnthropic(body []byte) (*Call, error) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	c := &Call{Model: req.Model, Stream: req.Stream, System: textOf(req.System)}
	for _, t := range req.Tools {
		c.Tools = append(c.Tools, t.Name)
	}
	for _, m := range req.Messages {
		msg := Message{Role: m.Role}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			msg.Text = s
			c.Messages = append(c.Messages, msg)
			continue
		}
		var blocks []anthropicBlock
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return nil, err
		}
		var texts []string
		for _, b := range blocks {
			switch b.Type {
			case "text":
				texts = append(texts, b.Text)
			case "tool_use":
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Args: b.Input})
			case "tool_result":
				msg.ToolResults = append(msg.ToolResults, ToolResult{ID: b.ToolUseID, Text: resultText(b.Content), IsError: b.IsError})
			}
		}
		msg.Text = strings.Join(texts, "\n")
		c.Messages = append(c.Messages, msg)
	}
	nameResults(c.Messages)
	return c, nil
}

// resultText is a tool result's content as text: a string, the text of
// its parts, or its JSON.
func resultText(raw json.RawMessage) string {
	if t := textOf(raw); t != "" {
		return t
	}
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	return string(raw)
}

// nameResults names each tool result after the call it answers.
func nameResults(msgs []Message) {
	names := map[string]string{}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			names[tc.ID] = tc.Name
		}
	}
	for i := range msgs {
		for j := range msgs[i].ToolResults {
			if tr := &msgs[i].ToolResults[j]; tr.Name == "" {
				tr.Name = names[tr.ID]
			}
		}
	}
}

func anthropicMessages(s *Server, w http.ResponseWriter, r *Request) {
	c, err := parseAnthropic(r.Body)
	if err != nil {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "bad request body: "+err.Error())
		return
	}
	reply := s.call(r, c)
	id := s.nextID("msg_")
	var content []map[string]any
	if reply.Text != "" || len(reply.ToolCalls) == 0 {
		content = append(content, map[string]any{"type": "text", "text": reply.Text})
	}
	for _, tc := range reply.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": json.RawMessage(tc.argsJSON())})
	}
	stop := "end_turn"
	if len(reply.ToolCalls) > 0 {
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": approxTokens(r.Body), "output_tokens": 1 + len(reply.Text)/4,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !c.Stream {
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "type": "message", "role": "assistant", "model": c.Model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	e := startSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": c.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": usage["input_tokens"], "output_tokens": 1,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
	for i, b := range content {
		if b["type"] == "text" {
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		} else {
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b["input"].(json.RawMessage))}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	e.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": usage["output_tokens"]}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}
