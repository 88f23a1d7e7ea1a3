package modeltest

import (
	"encoding/json"
	"testing"
)

type geminiResponse struct {
	Candidates []struct {
		Content struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         string `json:"text"`
				FunctionCall *struct {
					Name string         `json:"name"`
					Args map[string]any `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata struct {
		TotalTokenCount int `json:"totalTokenCount"`
	} `json:"usageMetadata"`
}

func decodeGemini(t *testing.T, data string) geminiResponse {
	t.Helper()
	var r geminiResponse
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		t.Fatalf("%q: %v", data, err)
	}
	if len(r.Candidates) != 1 || r.Candidates[0].Content.Role != "model" || r.Candidates[0].FinishReason != "STOP" || r.UsageMetadata.TotalTokenCount <= 0 {
		t.Fatalf("response %+v", r)
	}
	return r
}

func TestGeminiFunctionCallThenText(t *testing.T) {
	s := NewGemini(Steps(Tool("mcp_cairn_memory_store", map[string]any{"content": "x"}), Text("Stored.")))
	defer s.Close()
	first := `{"contents":[{"role":"user","parts":[{"text":"<hook_context>CTX</hook_context>\n\nstore it"}]}],
		"systemInstruction":{"role":"user","parts":[{"text":"You are Gemini CLI."}]},
		"tools":[{"functionDeclarations":[{"name":"read_file"},{"name":"mcp_cairn_memory_store"}]}],
		"generationConfig":{"temperature":0}}`
	events := readSSE(t, post(t, s, "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", first))
	if len(events) != 1 || events[0].name != "" {
		t.Fatalf("events %+v", events)
	}
	r := decodeGemini(t, events[0].data)
	fc := r.Candidates[0].Content.Parts[0].FunctionCall
	if fc == nil || fc.Name != "mcp_cairn_memory_store" || fc.Args["content"] != "x" {
		t.Fatalf("parts %+v", r.Candidates[0].Content.Parts)
	}

	second := `{"contents":[{"role":"user","parts":[{"text":"store it"}]},
		{"role":"model","parts":[{"functionCall":{"name":"mcp_cairn_memory_store","args":{"content":"x"}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"mcp_cairn_memory_store","response":{"output":"stored OUT"}}}]}]}`
	r = decodeGemini(t, readSSE(t, post(t, s, "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", second))[0].data)
	if p := r.Candidates[0].Content.Parts; len(p) != 1 || p[0].Text != "Stored." {
		t.Fatalf("parts %+v", p)
	}

	c := s.Calls()[0]
	if c.Model != "gemini-x" || !c.Stream || c.System != "You are Gemini CLI." || !c.HasTool("read_file") || c.JSONMode || !c.Contains("<hook_context>CTX") {
		t.Fatalf("first call read as %+v", c)
	}
	c = s.Calls()[1]
	if res := c.ToolResults(); c.Step() != 1 || len(res) != 1 || res[0].Name != "mcp_cairn_memory_store" || res[0].Text != "stored OUT" {
		t.Fatalf("second call: step %d results %+v", c.Step(), res)
	}
}

func TestGeminiJSONModeAndSideEndpoints(t *testing.T) {
	s := NewGemini(Steps(Tool("never", nil)))
	defer s.Close()
	// The CLI's router asks for JSON: it must get JSON, never a tool call.
	resp := post(t, s, "/v1beta/models/flash-lite:generateContent", `{"contents":[{"role":"user","parts":[{"text":"route this"}]}],
		"generationConfig":{"responseMimeType":"application/json"}}`)
	var r geminiResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	var choice map[string]any
	if err := json.Unmarshal([]byte(r.Candidates[0].Content.Parts[0].Text), &choice); err != nil || choice["model_choice"] == nil {
		t.Fatalf("router answer %+v: %v", r, err)
	}
	if !s.Calls()[0].JSONMode {
		t.Fatal("JSON mode not read")
	}
	resp = post(t, s, "/v1beta/models/flash-lite:countTokens", `{"contents":[]}`)
	var count struct {
		TotalTokens int `json:"totalTokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&count); err != nil || count.TotalTokens <= 0 {
		t.Fatalf("countTokens: %v %+v", err, count)
	}
	if len(s.Calls()) != 1 {
		t.Fatalf("%d calls: countTokens is not a model call", len(s.Calls()))
	}
}
