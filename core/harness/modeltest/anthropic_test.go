package modeltest

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// anthropicTurn is a streamed Messages answer put together as the SDK
// does: the text of the text blocks, the tool_use blocks with their input
// parsed from the input_json_delta pieces, and the stop reason.
type anthropicTurn struct {
	text  string
	tools []ToolCall
	stop  string
}

func assembleAnthropic(t *testing.T, events []event) anthropicTurn {
	t.Helper()
	var turn anthropicTurn
	partial := map[int]string{}
	blocks := map[int]map[string]any{}
	var names []string
	for _, e := range events {
		names = append(names, e.name)
		d := decode(t, e.data)
		if d["type"] != e.name {
			t.Fatalf("event %q carries type %v", e.name, d["type"])
		}
		idx := -1
		if f, ok := d["index"].(float64); ok {
			idx = int(f)
		}
		switch e.name {
		case "content_block_start":
			blocks[idx] = d["content_block"].(map[string]any)
		case "content_block_delta":
			delta := d["delta"].(map[string]any)
			switch delta["type"] {
			case "text_delta":
				turn.text += delta["text"].(string)
			case "input_json_delta":
				partial[idx] += delta["partial_json"].(string)
			default:
				t.Fatalf("delta type %v", delta["type"])
			}
		case "content_block_stop":
			if b := blocks[idx]; b["type"] == "tool_use" {
				var args map[string]any
				if err := json.Unmarshal([]byte(partial[idx]), &args); err != nil {
					t.Fatalf("tool input %q: %v", partial[idx], err)
				}
				turn.tools = append(turn.tools, ToolCall{ID: b["id"].(string), Name: b["name"].(string), Args: args})
			}
		case "message_delta":
			turn.stop = d["delta"].(map[string]any)["stop_reason"].(string)
		}
	}
	if names[0] != "message_start" || names[len(names)-1] != "message_stop" {
		t.Fatalf("events %v: want message_start first and message_stop last", names)
	}
	return turn
}

func TestAnthropicToolUseThenText(t *testing.T) {
	s := NewAnthropic(Steps(
		Tool("ToolSearch", map[string]any{"query": "select:mcp__cairn__memory_store", "max_results": 1}),
		Tool("mcp__cairn__memory_store", map[string]any{"content": "the build uses make"}),
		Text("Stored it."),
	))
	defer s.Close()

	// As Claude Code sends it: a system array, a user turn with a
	// reminder part, a system message with hook context, tools, stream.
	first := `{"model":"claude-x","stream":true,"max_tokens":100,
		"system":[{"type":"text","text":"You are a Claude agent."}],
		"messages":[
			{"role":"user","content":[{"type":"text","text":"<system-reminder>r</system-reminder>"},{"type":"text","text":"remember the build"}]},
			{"role":"system","content":[{"type":"text","text":"SessionStart hook additional context: CTX_MARKER_1"}]}],
		"tools":[{"name":"Bash","input_schema":{}},{"name":"ToolSearch","input_schema":{}}]}`
	resp := post(t, s, "/v1/messages?beta=true", first)
	turn := assembleAnthropic(t, readSSE(t, resp))
	if turn.stop != "tool_use" || len(turn.tools) != 1 || turn.tools[0].Name != "ToolSearch" || turn.text != "" {
		t.Fatalf("first turn: %+v", turn)
	}
	if want := map[string]any{"query": "select:mcp__cairn__memory_store", "max_results": float64(1)}; !reflect.DeepEqual(turn.tools[0].Args, want) {
		t.Fatalf("args %v, want %v", turn.tools[0].Args, want)
	}
	id := turn.tools[0].ID

	second := `{"model":"claude-x","stream":true,"messages":[
		{"role":"user","content":"remember the build"},
		{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"ToolSearch","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":[{"type":"tool_reference","tool_name":"mcp__cairn__memory_store"}]}]}],
		"tools":[{"name":"mcp__cairn__memory_store"}]}`
	turn = assembleAnthropic(t, readSSE(t, post(t, s, "/v1/messages?beta=true", second)))
	if turn.stop != "tool_use" || len(turn.tools) != 1 || turn.tools[0].Name != "mcp__cairn__memory_store" || turn.tools[0].ID == id {
		t.Fatalf("second turn: %+v", turn)
	}
	id2 := turn.tools[0].ID

	third := `{"model":"claude-x","stream":true,"messages":[
		{"role":"user","content":"remember the build"},
		{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"ToolSearch","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"found"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"` + id2 + `","name":"mcp__cairn__memory_store","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id2 + `","content":[{"type":"text","text":"stored RESULT_MARKER"}],"is_error":false}]}]}`
	turn = assembleAnthropic(t, readSSE(t, post(t, s, "/v1/messages?beta=true", third)))
	if turn.stop != "end_turn" || turn.text != "Stored it." || len(turn.tools) != 0 {
		t.Fatalf("third turn: %+v", turn)
	}

	calls := s.Calls()
	if len(calls) != 3 {
		t.Fatalf("%d calls", len(calls))
	}
	c := calls[0]
	if c.Model != "claude-x" || !c.Stream || c.System != "You are a Claude agent." || !c.HasTool("ToolSearch") || c.Step() != 0 {
		t.Fatalf("first call read as %+v", c)
	}
	if c.Prompt() != "<system-reminder>r</system-reminder>\nremember the build" {
		t.Fatalf("prompt %q", c.Prompt())
	}
	res := calls[2].ToolResults()
	if calls[2].Step() != 2 || len(res) != 2 || res[1].Name != "mcp__cairn__memory_store" || res[1].Text != "stored RESULT_MARKER" {
		t.Fatalf("third call: step %d results %+v", calls[2].Step(), res)
	}
	if got := s.Find("CTX_MARKER_1"); !reflect.DeepEqual(got, []int{0}) {
		t.Fatalf("Find: %v", got)
	}
	if !s.Reached("RESULT_MARKER") || s.Reached("NOT_SENT") {
		t.Fatal("Reached")
	}
}

func TestAnthropicNonStreamingAndSideEndpoints(t *testing.T) {
	s := NewAnthropic(Steps(Text("hello")))
	defer s.Close()
	resp := post(t, s, "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	var msg struct {
		Type       string `json:"type"`
		Role       string `json:"role"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type, Text string
		} `json:"content"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.Type != "message" || msg.Role != "assistant" || msg.StopReason != "end_turn" || len(msg.Content) != 1 || msg.Content[0].Text != "hello" {
		t.Fatalf("message %+v", msg)
	}

	var count struct {
		InputTokens int `json:"input_tokens"`
	}
	resp = post(t, s, "/v1/messages/count_tokens?beta=true", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if err := json.NewDecoder(resp.Body).Decode(&count); err != nil || count.InputTokens <= 0 {
		t.Fatalf("count_tokens: %v %+v", err, count)
	}
	mr, err := http.Get(s.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer mr.Body.Close()
	var models struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.NewDecoder(mr.Body).Decode(&models); err != nil || len(models.Data) != 1 || models.Data[0].ID != AnthropicModel {
		t.Fatalf("models: %v %+v", err, models)
	}
	if n := len(s.Calls()); n != 1 {
		t.Fatalf("%d calls: only /v1/messages is a model call", n)
	}
	if n := len(s.Requests()); n != 3 {
		t.Fatalf("%d requests logged", n)
	}

	bad := post(t, s, "/v1/messages", `{"messages":"nope"}`)
	if bad.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad body: status %d", bad.StatusCode)
	}
}
