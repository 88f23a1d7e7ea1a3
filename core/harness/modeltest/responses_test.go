package modeltest

import (
	"encoding/json"
	"net/http"
	"testing"
)

// responsesOutput checks a streamed Responses answer event by event and
// returns the output items of response.completed.
func responsesOutput(t *testing.T, events []event) []map[string]any {
	t.Helper()
	var names []string
	added := map[float64]bool{}
	var out []map[string]any
	for i, e := range events {
		names = append(names, e.name)
		d := decode(t, e.data)
		if d["type"] != e.name {
			t.Fatalf("event %q carries type %v", e.name, d["type"])
		}
		if d["sequence_number"] != float64(i) {
			t.Fatalf("event %d has sequence_number %v", i, d["sequence_number"])
		}
		switch e.name {
		case "response.output_item.added":
			added[d["output_index"].(float64)] = true
		case "response.output_text.delta":
			if !added[d["output_index"].(float64)] {
				t.Fatal("text delta before its item was added")
			}
		case "response.output_item.done":
			if !added[d["output_index"].(float64)] {
				t.Fatal("item done before it was added")
			}
		case "response.completed":
			resp := d["response"].(map[string]any)
			if resp["id"] == "" || resp["usage"] == nil {
				t.Fatalf("completed response %v", resp)
			}
			for _, it := range resp["output"].([]any) {
				out = append(out, it.(map[string]any))
			}
		}
	}
	if names[0] != "response.created" || names[len(names)-1] != "response.completed" {
		t.Fatalf("events %v", names)
	}
	return out
}

func TestResponsesNamespacedToolCallThenText(t *testing.T) {
	s := NewResponses(Steps(Tool("mcp__cairn__memory_store", map[string]any{"content": "x"}), Text("Stored.")))
	defer s.Close()
	// As Codex sends it: instructions empty, the base prompt a developer
	// item, MCP tools in a namespace.
	first := `{"model":"gpt-x","stream":true,"instructions":"","input":[
		{"type":"message","role":"developer","content":[{"type":"input_text","text":"base prompt"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>e</environment_context>"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"store it"}]},
		{"type":"message","role":"developer","content":[{"type":"input_text","text":"HOOK_CTX"}]}],
		"tools":[{"type":"function","name":"shell"},{"type":"namespace","name":"mcp__cairn","tools":[{"type":"function","name":"memory_store"}]},{"type":"web_search"}]}`
	out := responsesOutput(t, readSSE(t, post(t, s, "/v1/responses", first)))
	if len(out) != 1 || out[0]["type"] != "function_call" || out[0]["namespace"] != "mcp__cairn" || out[0]["name"] != "memory_store" {
		t.Fatalf("output %v", out)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(out[0]["arguments"].(string)), &args); err != nil || args["content"] != "x" {
		t.Fatalf("arguments %v: %v", out[0]["arguments"], err)
	}
	callID := out[0]["call_id"].(string)

	second := `{"model":"gpt-x","stream":true,"input":[
		{"type":"message","role":"user","content":[{"type":"input_text","text":"store it"}]},
		{"type":"function_call","namespace":"mcp__cairn","name":"memory_store","call_id":"` + callID + `","arguments":"{}"},
		{"type":"function_call_output","call_id":"` + callID + `","output":"stored OUT_MARKER"}]}`
	out = responsesOutput(t, readSSE(t, post(t, s, "/v1/responses", second)))
	if len(out) != 1 || out[0]["type"] != "message" {
		t.Fatalf("output %v", out)
	}
	content := out[0]["content"].([]any)[0].(map[string]any)
	if content["type"] != "output_text" || content["text"] != "Stored." {
		t.Fatalf("content %v", content)
	}

	calls := s.Calls()
	if c := calls[0]; c.Prompt() != "store it" || !c.HasTool("mcp__cairn__memory_store") || !c.HasTool("shell") || !c.HasTool("web_search") || !c.Contains("HOOK_CTX") {
		t.Fatalf("first call read as %+v", c)
	}
	c := calls[1]
	if res := c.ToolResults(); c.Step() != 1 || len(res) != 1 || res[0].Name != "mcp__cairn__memory_store" || res[0].Text != "stored OUT_MARKER" {
		t.Fatalf("second call: step %d results %+v", c.Step(), c.ToolResults())
	}
}

func TestResponsesFlatToolAndNonStreaming(t *testing.T) {
	s := NewResponses(Steps(Reply{ToolCalls: []ToolCall{{Name: "shell", Args: map[string]any{"command": []string{"ls"}}}, {Name: "other"}}}))
	defer s.Close()
	resp := post(t, s, "/v1/responses", `{"model":"m","input":"list files","tools":[{"type":"function","name":"shell"}]}`)
	var r struct {
		Object string           `json:"object"`
		Status string           `json:"status"`
		Output []map[string]any `json:"output"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Object != "response" || r.Status != "completed" || len(r.Output) != 2 || r.Output[0]["name"] != "shell" || r.Output[0]["namespace"] != nil {
		t.Fatalf("response %+v", r)
	}
	if r.Output[0]["call_id"] == r.Output[1]["call_id"] {
		t.Fatal("two calls share an id")
	}
	if s.Calls()[0].Prompt() != "list files" {
		t.Fatalf("string input read as %+v", s.Calls()[0].Messages)
	}
	mr, err := http.Get(s.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	mr.Body.Close()
	if mr.StatusCode != 200 {
		t.Fatalf("models: %d", mr.StatusCode)
	}
}
