package modeltest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// NewResponses starts a scripted OpenAI Responses API, as Codex CLI calls
// it through a model provider whose base_url is URL + "/v1" and whose
// wire_api is "responses": POST /v1/responses (SSE when the request
// streams, else one JSON response) and GET /v1/models.
//
// A tool call whose Namespace is empty goes out in the namespace of the
// tools offered when its Name is NAMESPACE__TOOL (Codex offers the MCP
// server cairn's tools in the namespace mcp__cairn and takes a flat
// mcp__cairn__memory_store as an unsupported call).
func NewResponses(script Script) *Server { return newServer(responsesAPI{}, script) }

type responsesAPI struct{}

// ResponsesModel is the model GET /v1/models lists.
const ResponsesModel = "gpt-scripted"

func (responsesAPI) serve(s *Server, w http.ResponseWriter, r *Request) {
	path, _, _ := strings.Cut(r.Path, "?")
	switch {
	case r.Method == http.MethodPost && path == "/v1/responses":
		responsesCreate(s, w, r)
	case r.Method == http.MethodGet && path == "/v1/models":
		writeJSON(w, http.StatusOK, map[string]any{"object": "list",
			"data": []any{map[string]any{"id": ResponsesModel, "object": "model", "owned_by": "modeltest"}}, "models": []any{}})
	default:
		openAIError(w, http.StatusNotFound, "not found: "+r.Method+" "+path)
	}
}

func openAIError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": nil}})
}

type responsesRequest struct {
	Model        string          `json:"model"`
	Stream       bool            `json:"stream"`
	Instructions string          `json:"instructions"`
	Input        json.RawMessage `json:"input"`
	Tools        []responsesTool `json:"tools"`
	Text         struct {
		Format struct {
			Type string `json:"type"`
		} `json:"format"`
	} `json:"text"`
}

type responsesTool struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Tools []responsesTool `json:"tools"`
}

type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	CallID    string          `json:"call_id"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Output    json.RawMessage `json:"output"`
}

// namespaced is the flat name of tool name in namespace ns.
func namespaced(ns, name string) string {
	if ns == "" {
		return name
	}
	return strings.TrimSuffix(ns, "__") + "__" + name
}

func parseResponses(body []byte) (*Call, []responsesTool, error) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, nil, err
	}
	c := &Call{Model: req.Model, Stream: req.Stream, System: req.Instructions,
		JSONMode: req.Text.Format.Type == "json_schema" || req.Text.Format.Type == "json_object"}
	for _, t := range req.Tools {
		if t.Type == "namespace" {
			for _, sub := range t.Tools {
				c.Tools = append(c.Tools, namespaced(t.Name, sub.Name))
			}
			continue
		}
		name := t.Name
		if name == "" {
			name = t.Type // a built-in tool (web_search, local_shell) has no name
		}
		c.Tools = append(c.Tools, name)
	}
	var s string
	if json.Unmarshal(req.Input, &s) == nil {
		c.Messages = []Message{{Role: "user", Text: s}}
		return c, req.Tools, nil
	}
	var items []responsesItem
	if len(req.Input) > 0 {
		if err := json.Unmarshal(req.Input, &items); err != nil {
			return nil, nil, err
		}
	}
	for _, it := range items {
		switch it.Type {
		case "function_call", "custom_tool_call":
			args := it.Arguments
			if it.Type == "custom_tool_call" {
				b, _ := json.Marshal(it.Input)
				args = string(b)
			}
			tc := ToolCall{ID: it.CallID, Name: namespaced(it.Namespace, it.Name), Namespace: it.Namespace, Args: json.RawMessage(orJSON(args))}
			// Calls made in one response are one assistant message.
			if n := len(c.Messages); n > 0 && c.Messages[n-1].Role == "assistant" && c.Messages[n-1].Text == "" && len(c.Messages[n-1].ToolCalls) > 0 {
				c.Messages[n-1].ToolCalls = append(c.Messages[n-1].ToolCalls, tc)
				continue
			}
			c.Messages = append(c.Messages, Message{Role: "assistant", ToolCalls: []ToolCall{tc}})
		case "function_call_output", "custom_tool_call_output":
			c.Messages = append(c.Messages, Message{Role: "tool", ToolResults: []ToolResult{{ID: it.CallID, Text: resultText(it.Output)}}})
		case "message", "":
			if it.Role != "" {
				c.Messages = append(c.Messages, Message{Role: it.Role, Text: textOf(it.Content)})
			}
		}
	}
	nameResults(c.Messages)
	return c, req.Tools, nil
}

// orJSON is s, or {} when s is not JSON.
func orJSON(s string) string {
	if json.Valid([]byte(s)) {
		return s
	}
	return "{}"
}

// resolveNamespace puts a flat NAMESPACE__TOOL call in its namespace when
// the request offered that namespace with that tool.
func resolveNamespace(tc *ToolCall, tools []responsesTool) {
	if tc.Namespace != "" {
		tc.Name = strings.TrimPrefix(tc.Name, strings.TrimSuffix(tc.Namespace, "__")+"__")
		return
	}
	for _, t := range tools {
		if t.Type != "namespace" {
			continue
		}
		for _, sub := range t.Tools {
			if namespaced(t.Name, sub.Name) == tc.Name {
				tc.Namespace, tc.Name = t.Name, sub.Name
				return
			}
		}
	}
}

func responsesCreate(s *Server, w http.ResponseWriter, r *Request) {
	c, tools, err := parseResponses(r.Body)
	if err != nil {
		openAIError(w, http.StatusBadRequest, "bad request body: "+err.Error())
		return
	}
	reply := s.call(r, c)
	id := s.nextID("resp_")
	var output []map[string]any
	if reply.Text != "" || len(reply.ToolCalls) == 0 {
		output = append(output, map[string]any{"type": "message", "id": s.nextID("msg_"), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": reply.Text, "annotations": []any{}}}})
	}
	for _, tc := range reply.ToolCalls {
		resolveNamespace(&tc, tools)
		item := map[string]any{"type": "function_call", "id": s.nextID("fc_"), "call_id": tc.ID, "name": tc.Name,
			"arguments": tc.argsJSON(), "status": "completed"}
		if tc.Namespace != "" {
			item["namespace"] = tc.Namespace
		}
		output = append(output, item)
	}
	usage := map[string]any{"input_tokens": approxTokens(r.Body), "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 1 + len(reply.Text)/4, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	usage["total_tokens"] = usage["input_tokens"].(int) + usage["output_tokens"].(int)
	resp := map[string]any{"id": id, "object": "response", "status": "completed", "model": c.Model, "output": output, "usage": usage}
	if !c.Stream {
		writeJSON(w, http.StatusOK, resp)
		return
	}
	e := startSSE(w)
	seq := 0
	ev := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		e.event(typ, fields)
	}
	ev("response.created", map[string]any{"response": map[string]any{"id": id, "object": "response", "status": "in_progress", "model": c.Model, "output": []any{}}})
	for i, item := range output {
		if item["type"] == "message" {
			ev("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{
				"type": "message", "id": item["id"], "role": "assistant", "status": "in_progress", "content": []any{}}})
			ev("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0, "delta": reply.Text})
		} else {
			added := map[string]any{}
			for k, v := range item {
				added[k] = v
			}
			added["arguments"], added["status"] = "", "in_progress"
			ev("response.output_item.added", map[string]any{"output_index": i, "item": added})
		}
		ev("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	ev("response.completed", map[string]any{"response": resp})
}
