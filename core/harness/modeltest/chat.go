package modeltest

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// NewChat starts a scripted OpenAI chat completions API, as OpenCode calls
// it through an openai-compatible provider whose baseURL is URL + "/v1":
// POST /v1/chat/completions (SSE chunks ending in [DONE] when the request
// streams, else one JSON completion) and GET /v1/models.
func NewChat(script Script) *Server { return newServer(chatAPI{}, script) }

type chatAPI struct{}

// ChatModel is the model GET /v1/models lists.
const ChatModel = "chat-scripted"

func (chatAPI) serve(s *Server, w http.ResponseWriter, r *Request) {
	path, _, _ := strings.Cut(r.Path, "?")
	switch {
	case r.Method == http.MethodPost && path == "/v1/chat/completions":
		chatCompletions(s, w, r)
	case r.Method == http.MethodGet && path == "/v1/models":
		writeJSON(w, http.StatusOK, map[string]any{"object": "list",
			"data": []any{map[string]any{"id": ChatModel, "object": "model", "owned_by": "modeltest"}}})
	default:
		openAIError(w, http.StatusNotFound, "not found: "+r.Method+" "+path)
	}
}

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

func parseChat(body []byte) (*Call, error) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	c := &Call{Model: req.Model, Stream: req.Stream,
		JSONMode: req.ResponseFormat.Type == "json_object" || req.ResponseFormat.Type == "json_schema"}
	for _, t := range req.Tools {
		c.Tools = append(c.Tools, t.Function.Name)
	}
	var system []string
	for _, m := range req.Messages {
		msg := Message{Role: m.Role, Text: textOf(m.Content)}
		if m.Role == "system" {
			system = append(system, msg.Text)
		}
		if m.Role == "tool" {
			msg.ToolResults = []ToolResult{{ID: m.ToolCallID, Text: msg.Text}}
			msg.Text = ""
		}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: json.RawMessage(orJSON(tc.Function.Arguments))})
		}
		c.Messages = append(c.Messages, msg)
	}
	c.System = strings.Join(system, "\n")
	nameResults(c.Messages)
	return c, nil
}

func chatCompletions(s *Server, w http.ResponseWriter, r *Request) {
	c, err := parseChat(r.Body)
	if err != nil {
		openAIError(w, http.StatusBadRequest, "bad request body: "+err.Error())
		return
	}
	reply := s.call(r, c)
	id := s.nextID("chatcmpl-")
	now := time.Now().Unix()
	var calls []any
	for i, tc := range reply.ToolCalls {
		calls = append(calls, map[string]any{"index": i, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": tc.argsJSON()}})
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	msg := map[string]any{"role": "assistant", "content": reply.Text}
	if reply.Text == "" && len(calls) > 0 {
		msg["content"] = nil
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	usage := map[string]any{"prompt_tokens": approxTokens(r.Body), "completion_tokens": 1 + len(reply.Text)/4}
	usage["total_tokens"] = usage["prompt_tokens"].(int) + usage["completion_tokens"].(int)
	if !c.Stream {
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": now, "model": c.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	e := startSSE(w)
	chunk := func(delta map[string]any, finish any, usage any) {
		ch := map[string]any{"id": id, "object": "chat.completion.chunk", "created": now, "model": c.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			ch["usage"] = usage
		}
		e.event("", ch)
	}
	chunk(msg, nil, nil)
	chunk(map[string]any{}, finish, usage)
	e.event("", "[DONE]")
}
