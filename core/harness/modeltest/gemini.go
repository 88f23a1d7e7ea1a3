package modeltest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// NewGemini starts a scripted Gemini API (v1beta), as Gemini CLI calls it
// with GOOGLE_GEMINI_BASE_URL set to URL: POST
// /v1beta/models/MODEL:streamGenerateContent (SSE) and :generateContent
// (JSON), :countTokens, and GET /v1beta/models.
//
// A call that asks for JSON (responseMimeType application/json: the CLI's
// model router and next-speaker check) is a JSONMode call; Steps answers
// it DefaultJSON.
func NewGemini(script Script) *Server { return newServer(geminiAPI{}, script) }

type geminiAPI struct{}

func (geminiAPI) serve(s *Server, w http.ResponseWriter, r *Request) {
	path, _, _ := strings.Cut(r.Path, "?")
	model, method, _ := strings.Cut(strings.TrimPrefix(path, "/v1beta/models/"), ":")
	switch {
	case r.Method == http.MethodGet && (path == "/v1beta/models" || path == "/v1/models"):
		writeJSON(w, http.StatusOK, map[string]any{"models": []any{}})
	case r.Method != http.MethodPost || !strings.HasPrefix(path, "/v1beta/models/"):
		geminiError(w, http.StatusNotFound, "not found: "+r.Method+" "+path)
	case method == "countTokens":
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": approxTokens(r.Body)})
	case method == "generateContent" || method == "streamGenerateContent":
		geminiGenerate(s, w, r, model, method == "streamGenerateContent")
	default:
		geminiError(w, http.StatusNotFound, "not found: "+r.Method+" "+path)
	}
}

func geminiError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{"code": code, "message": msg, "status": "NOT_FOUND"}})
}

type geminiContent struct {
	Role  string `json:"role"`
	Parts []struct {
		Text         string `json:"text"`
		Thought      bool   `json:"thought"`
		FunctionCall *struct {
			ID   string          `json:"id"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"functionCall"`
		FunctionResponse *struct {
			ID       string          `json:"id"`
			Name     string          `json:"name"`
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	} `json:"parts"`
}

type geminiRequest struct {
	Contents          []geminiContent `json:"contents"`
	SystemInstruction *geminiContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

func geminiText(c *geminiContent) string {
	var texts []string
	for _, p := range c.Parts {
		if p.Text != "" && !p.Thought {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

func parseGemini(body []byte, model string, stream bool) (*Call, error) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	c := &Call{Model: model, Stream: stream, JSONMode: req.GenerationConfig.ResponseMimeType == "application/json"}
	if req.SystemInstruction != nil {
		c.System = geminiText(req.SystemInstruction)
	}
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			c.Tools = append(c.Tools, d.Name)
		}
	}
	for i := range req.Contents {
		gc := &req.Contents[i]
		m := Message{Role: gc.Role, Text: geminiText(gc)}
		if m.Role == "model" {
			m.Role = "assistant"
		}
		for _, p := range gc.Parts {
			if fc := p.FunctionCall; fc != nil {
				m.ToolCalls = append(m.ToolCalls, ToolCall{ID: fc.ID, Name: fc.Name, Args: fc.Args})
			}
			if fr := p.FunctionResponse; fr != nil {
				m.ToolResults = append(m.ToolResults, ToolResult{ID: fr.ID, Name: fr.Name, Text: geminiResult(fr.Response)})
			}
		}
		c.Messages = append(c.Messages, m)
	}
	return c, nil
}

// geminiResult is a functionResponse's text: its output (or error) field
// when it is a string, else its JSON.
func geminiResult(raw json.RawMessage) string {
	var r map[string]any
	if json.Unmarshal(raw, &r) == nil {
		for _, k := range []string{"output", "error", "content"} {
			if s, ok := r[k].(string); ok {
				return s
			}
		}
	}
	return string(raw)
}

func geminiGenerate(s *Server, w http.ResponseWriter, r *Request, model string, stream bool) {
	c, err := parseGemini(r.Body, model, stream)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400, "message": "bad request body: " + err.Error(), "status": "INVALID_ARGUMENT"}})
		return
	}
	reply := s.call(r, c)
	var parts []any
	if reply.Text != "" || len(reply.ToolCalls) == 0 {
		parts = append(parts, map[string]any{"text": reply.Text})
	}
	for _, tc := range reply.ToolCalls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": tc.ID, "name": tc.Name, "args": json.RawMessage(tc.argsJSON())}})
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": approxTokens(r.Body), "candidatesTokenCount": 1 + len(reply.Text)/4, "totalTokenCount": approxTokens(r.Body) + 1 + len(reply.Text)/4},
		"modelVersion":  model,
		"responseId":    s.nextID("gen_"),
	}
	if !stream {
		writeJSON(w, http.StatusOK, resp)
		return
	}
	startSSE(w).event("", resp)
}
