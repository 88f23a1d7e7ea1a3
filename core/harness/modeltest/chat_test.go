package modeltest

import (
	"encoding/json"
	"testing"
)

// chatStream puts a streamed completion together as the AI SDK does: the
// content, the tool calls by index, the finish reason, and checks it ends
// with [DONE] after a chunk carrying usage.
func chatStream(t *testing.T, events []event) (content string, calls []map[string]any, finish string) {
	t.Helper()
	if n := len(events); n < 2 || events[n-1].data != "[DONE]" {
		t.Fatalf("events %+v: want [DONE] last", events)
	}
	sawUsage := false
	for _, e := range events[:len(events)-1] {
		d := decode(t, e.data)
		if d["object"] != "chat.completion.chunk" {
			t.Fatalf("chunk %v", d)
		}
		if d["usage"] != nil {
			sawUsage = true
		}
		ch := d["choices"].([]any)[0].(map[string]any)
		delta := ch["delta"].(map[string]any)
		if s, ok := delta["content"].(string); ok {
			content += s
		}
		if tc, ok := delta["tool_calls"].([]any); ok {
			for _, c := range tc {
				calls = append(calls, c.(map[string]any))
			}
		}
		if f, ok := ch["finish_reason"].(string); ok {
			finish = f
		}
	}
	if !sawUsage {
		t.Fatal("no chunk carries usage")
	}
	return content, calls, finish
}

func TestChatToolCallThenText(t *testing.T) {
	s := NewChat(Steps(Tool("cairn_memory_store", map[string]any{"content": "x"}), Text("Stored.")))
	defer s.Close()
	first := `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[
		{"role":"system","content":"You are opencode."},{"role":"system","content":"SYS_CTX"},
		{"role":"user","content":[{"type":"text","text":"store it"},{"type":"text","text":"PART_CTX"}]}],
		"tools":[{"type":"function","function":{"name":"bash"}},{"type":"function","function":{"name":"cairn_memory_store"}}]}`
	content, calls, finish := chatStream(t, readSSE(t, post(t, s, "/v1/chat/completions", first)))
	if content != "" || finish != "tool_calls" || len(calls) != 1 {
		t.Fatalf("content %q finish %q calls %v", content, finish, calls)
	}
	fn := calls[0]["function"].(map[string]any)
	if fn["name"] != "cairn_memory_store" || fn["arguments"] != `{"content":"x"}` || calls[0]["id"] == "" {
		t.Fatalf("call %v", calls[0])
	}
	id := calls[0]["id"].(string)

	second := `{"model":"m","stream":true,"messages":[{"role":"user","content":"store it"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"cairn_memory_store","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"` + id + `","content":"stored OUT"}]}`
	content, calls, finish = chatStream(t, readSSE(t, post(t, s, "/v1/chat/completions", second)))
	if content != "Stored." || finish != "stop" || len(calls) != 0 {
		t.Fatalf("content %q finish %q calls %v", content, finish, calls)
	}

	c := s.Calls()[0]
	if c.System != "You are opencode.\nSYS_CTX" || c.Prompt() != "store it\nPART_CTX" || !c.HasTool("bash") {
		t.Fatalf("first call read as %+v", c)
	}
	c = s.Calls()[1]
	if res := c.ToolResults(); c.Step() != 1 || len(res) != 1 || res[0].Name != "cairn_memory_store" || res[0].Text != "stored OUT" {
		t.Fatalf("second call: step %d results %+v", c.Step(), res)
	}
}

func TestChatNonStreamingAndJSONMode(t *testing.T) {
	s := NewChat(nil)
	defer s.Close()
	resp := post(t, s, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"title?"}],"response_format":{"type":"json_object"}}`)
	var r struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Object != "chat.completion" || len(r.Choices) != 1 || r.Choices[0].FinishReason != "stop" || !json.Valid([]byte(r.Choices[0].Message.Content)) {
		t.Fatalf("completion %+v", r)
	}
}
