package modeltest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// maxBody bounds what a server reads of one request; the CLIs send a few
// hundred kilobytes at most (their system prompts and tool schemas).
const maxBody = 64 << 20

// Request is one HTTP request a server got, as it came.
type Request struct {
	Method string
	// Path is the request's path with its query (/v1/messages?beta=true).
	Path   string
	Header http.Header
	// Body is the request body, decompressed when it came gzip-encoded.
	Body []byte
	// Call is the model call the request made, nil for other requests
	// (model listings, token counts, unknown paths).
	Call *Call

	textOnce sync.Once
	text     string
}

// Text is every string in the request's JSON body, decoded and joined by
// newlines (the raw body when it is not JSON): what a marker is searched
// in, so escaping (\n, \u003c, \") never hides it.
func (r *Request) Text() string {
	r.textOnce.Do(func() {
		var v any
		if json.Unmarshal(r.Body, &v) != nil {
			r.text = string(r.Body)
			return
		}
		var b strings.Builder
		collectStrings(&b, v)
		r.text = b.String()
	})
	return r.text
}

// Contains reports whether marker is in the request body, raw or decoded.
func (r *Request) Contains(marker string) bool {
	return bytes.Contains(r.Body, []byte(marker)) || strings.Contains(r.Text(), marker)
}

func collectStrings(b *strings.Builder, v any) {
	switch v := v.(type) {
	case string:
		b.WriteString(v)
		b.WriteByte('\n')
	case []any:
		for _, e := range v {
			collectStrings(b, e)
		}
	case map[string]any:
		for _, e := range v {
			collectStrings(b, e)
		}
	}
}

// Call is a model call read into a form common to the four APIs.
type Call struct {
	// Index is the call's place among the server's calls, from 0.
	Index int
	// Request is the HTTP request that made the call.
	Request *Request
	Model   string
	Stream  bool
	// System is the system prompt (Responses: instructions; chat
	// completions: the system messages).
	System string
	// Messages is the conversation in order; tool calls are assistant
	// messages, tool results messages of their own or of the user.
	Messages []Message
	// Tools are the names of the tools offered, as the model calls them
	// (a Responses API namespaced tool as NAMESPACE__NAME).
	Tools []string
	// JSONMode says the request asks for a JSON answer (Gemini's
	// responseMimeType, a chat response_format): a classifier or router
	// side call rather than an agent turn.
	JSONMode bool
}

// Message is one message of a Call's conversation.
type Message struct {
	// Role is user, assistant, system, developer or tool, as the API says
	// it (Gemini's model is assistant here).
	Role        string
	Text        string
	ToolCalls   []ToolCall
	ToolResults []ToolResult
}

// ToolResult is a tool's answer as the CLI sent it back.
type ToolResult struct {
	// ID is the id of the call it answers (Gemini: empty).
	ID   string
	Name string
	// Text is the result's text, or its JSON when it is structured.
	Text    string
	IsError bool
}

// Contains reports whether marker reached the model in this call.
func (c *Call) Contains(marker string) bool { return c.Request.Contains(marker) }

// HasTool reports whether the call offered a tool named name.
func (c *Call) HasTool(name string) bool {
	for _, t := range c.Tools {
		if t == name {
			return true
		}
	}
	return false
}

// Prompt is the text of the last user message that is not only tool
// results: the prompt of the turn in progress.
func (c *Call) Prompt() string {
	if i := c.promptIndex(); i >= 0 {
		return c.Messages[i].Text
	}
	return ""
}

func (c *Call) promptIndex() int {
	for i := len(c.Messages) - 1; i >= 0; i-- {
		m := c.Messages[i]
		if m.Role == "user" && len(m.ToolResults) == 0 && strings.TrimSpace(m.Text) != "" {
			return i
		}
	}
	return -1
}

// Step is how many rounds of tool calls the model has made since the
// prompt of the turn in progress: 0 on a turn's first call.
func (c *Call) Step() int {
	n := 0
	for _, m := range c.Messages[c.promptIndex()+1:] {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			n++
		}
	}
	return n
}

// ToolResults are the tool results sent since the turn's prompt, oldest
// first.
func (c *Call) ToolResults() []ToolResult {
	var out []ToolResult
	for _, m := range c.Messages[c.promptIndex()+1:] {
		out = append(out, m.ToolResults...)
	}
	return out
}

// Reply is what the scripted model answers: text, tool calls, or both
// (the text first).
type Reply struct {
	Text      string
	ToolCalls []ToolCall
}

// ToolCall is one call of a tool by the model.
type ToolCall struct {
	// ID is the call's id; the server makes one when it is empty.
	ID   string
	Name string
	// Namespace is the Responses API's namespace of a tool (Codex puts
	// MCP tools in mcp__SERVER). Left empty, the server takes it from the
	// tools offered when Name is NAMESPACE + "__" + TOOL.
	Namespace string
	// Args are the call's arguments: any JSON value, or json.RawMessage.
	Args any
}

// Text is a Reply of text only.
func Text(s string) Reply { return Reply{Text: s} }

// Tool is a Reply that calls one tool with args.
func Tool(name string, args any) Reply {
	return Reply{ToolCalls: []ToolCall{{Name: name, Args: args}}}
}

func (tc ToolCall) argsJSON() string {
	switch a := tc.Args.(type) {
	case nil:
		return "{}"
	case json.RawMessage:
		return string(a)
	case string:
		if json.Valid([]byte(a)) {
			return a
		}
	}
	b, err := json.Marshal(tc.Args)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// Script answers the model calls. Servers may call it from several
// goroutines at once (a CLI's side calls run beside its turn).
type Script func(*Call) Reply

// Steps answers each call by its Step: the first reply on a turn's first
// call, the second once the first's tool results are back, and so on;
// past the last, and for JSON-mode side calls, DefaultText.
func Steps(replies ...Reply) Script {
	return func(c *Call) Reply {
		if c.JSONMode {
			return Text(DefaultJSON)
		}
		if i := c.Step(); i < len(replies) {
			return replies[i]
		}
		return Text(DefaultText)
	}
}

// DefaultText is what Steps answers once its replies run out.
const DefaultText = "Done."

// DefaultJSON is what Steps answers a JSON-mode call: an object with the
// fields the CLIs' classifiers read (Gemini CLI's router and next-speaker
// check), each harmless.
const DefaultJSON = `{"reasoning":"scripted","model_choice":"flash","complexity_reasoning":"scripted","complexity_score":1,"next_speaker":"user"}`

// Server is a scripted model API on a loopback port.
type Server struct {
	// URL is the server's base URL (http://127.0.0.1:PORT), without a
	// version path.
	URL string

	api    wireAPI
	script Script
	ts     *httptest.Server

	mu       sync.Mutex
	requests []*Request
	calls    []*Call
	ids      int
}

// wireAPI is one of the four APIs: it answers a logged request, making a
// model call of it through s.call where it is one.
type wireAPI interface {
	serve(s *Server, w http.ResponseWriter, r *Request)
}

func newServer(api wireAPI, script Script) *Server {
	if script == nil {
		script = Steps()
	}
	s := &Server{api: api, script: script}
	s.ts = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.ts.URL
	return s
}

// Close shuts the server down, waiting for requests in flight.
func (s *Server) Close() {
	s.ts.CloseClientConnections()
	s.ts.Close()
}

func (s *Server) handle(w http.ResponseWriter, hr *http.Request) {
	body, err := readBody(hr)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r := &Request{Method: hr.Method, Path: hr.URL.RequestURI(), Header: hr.Header.Clone(), Body: body}
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.mu.Unlock()
	s.api.serve(s, w, r)
}

func readBody(hr *http.Request) ([]byte, error) {
	var rd io.Reader = io.LimitReader(hr.Body, maxBody)
	if strings.EqualFold(hr.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(rd)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		rd = io.LimitReader(zr, maxBody)
	}
	return io.ReadAll(rd)
}

// call records c as a model call of r and asks the script for its reply.
func (s *Server) call(r *Request, c *Call) Reply {
	s.mu.Lock()
	c.Index = len(s.calls)
	c.Request = r
	r.Call = c
	s.calls = append(s.calls, c)
	s.mu.Unlock()
	reply := s.script(c)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range reply.ToolCalls {
		if reply.ToolCalls[i].ID == "" {
			s.ids++
			reply.ToolCalls[i].ID = fmt.Sprintf("call_%d", s.ids)
		}
	}
	return reply
}

// nextID is a fresh id with prefix, unique on this server.
func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("%s%d", prefix, s.ids)
}

// Requests are the requests the server got so far, in order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// Calls are the model calls the server answered so far, in order.
func (s *Server) Calls() []*Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Call(nil), s.calls...)
}

// Find is the indexes of the calls whose request holds marker.
func (s *Server) Find(marker string) []int {
	var out []int
	for _, c := range s.Calls() {
		if c.Contains(marker) {
			out = append(out, c.Index)
		}
	}
	return out
}

// Reached reports whether marker reached the model in any call.
func (s *Server) Reached(marker string) bool { return len(s.Find(marker)) > 0 }

// Summary describes the requests for a test's failure message: one line
// each, with the call's step, prompt and tool results cut short.
func (s *Server) Summary() string {
	var b strings.Builder
	for i, r := range s.Requests() {
		fmt.Fprintf(&b, "%d %s %s (%d bytes)", i, r.Method, r.Path, len(r.Body))
		if c := r.Call; c != nil {
			fmt.Fprintf(&b, " call %d model=%s step=%d tools=%d prompt=%q", c.Index, c.Model, c.Step(), len(c.Tools), cut(c.Prompt(), 80))
			for _, tr := range c.ToolResults() {
				fmt.Fprintf(&b, " result(%s)=%q", tr.Name, cut(tr.Text, 120))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// writeJSON answers v as JSON with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
}

// sse writes server-sent events, flushing each.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

// event writes one event: "event: NAME" when name is set, then the data
// line of v as JSON (a string as it is).
func (e *sse) event(name string, v any) {
	var data []byte
	if s, ok := v.(string); ok {
		data = []byte(s)
	} else {
		data, _ = json.Marshal(v)
	}
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", data)
	if e.f != nil {
		e.f.Flush()
	}
}

// textOf reads a content value that is a string, or an array of parts
// whose "text" fields hold the text, into one string.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b []string
	for _, p := range parts {
		if p.Text != "" {
			b = append(b, p.Text)
		}
	}
	return strings.Join(b, "\n")
}
