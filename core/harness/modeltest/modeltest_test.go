package modeltest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// post sends body to s at path and returns the response.
func post(t *testing.T, s *Server, path, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// event is one server-sent event.
type event struct {
	name string
	data string
}

// readSSE reads every event of a text/event-stream response.
func readSSE(t *testing.T, resp *http.Response) []event {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q, want text/event-stream", ct)
	}
	var out []event
	var cur event
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case line == "":
			if cur.data != "" || cur.name != "" {
				out = append(out, cur)
			}
			cur = event{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("not an SSE line: %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// decode unmarshals data into a map, failing the test when it is not JSON.
func decode(t *testing.T, data string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("not a JSON object: %q: %v", data, err)
	}
	return m
}

func TestStepsFollowTheTurn(t *testing.T) {
	script := Steps(Tool("a", map[string]any{"x": 1}), Tool("b", nil))
	prompt := Message{Role: "user", Text: "go"}
	call := Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "1", Name: "a"}}}
	result := Message{Role: "user", ToolResults: []ToolResult{{ID: "1", Text: "ok"}}}
	for _, tc := range []struct {
		name string
		msgs []Message
		want string
	}{
		{"first call", []Message{prompt}, "a"},
		{"after one result", []Message{prompt, call, result}, "b"},
		{"after two results", []Message{prompt, call, result, call, result}, ""},
		{"a new prompt starts over", []Message{prompt, call, result, {Role: "assistant", Text: "x"}, prompt}, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := script(&Call{Messages: tc.msgs})
			got := ""
			if len(r.ToolCalls) > 0 {
				got = r.ToolCalls[0].Name
			} else if r.Text != DefaultText {
				t.Fatalf("text %q, want %q", r.Text, DefaultText)
			}
			if got != tc.want {
				t.Fatalf("tool %q, want %q", got, tc.want)
			}
		})
	}
	if r := script(&Call{JSONMode: true, Messages: []Message{prompt}}); r.Text != DefaultJSON || !json.Valid([]byte(r.Text)) {
		t.Fatalf("JSON mode: %+v", r)
	}
}

func TestRequestContainsDecodedText(t *testing.T) {
	r := &Request{Body: []byte(`{"a":["x \u003cctx\u003e \"q\"\nnext"]}`)}
	for _, m := range []string{`<ctx> "q"`, "next", "u003c"} {
		if !r.Contains(m) {
			t.Errorf("missing %q", m)
		}
	}
	if r.Contains("absent") {
		t.Error("found a marker that is not there")
	}
}

func TestArgsJSON(t *testing.T) {
	for _, tc := range []struct {
		args any
		want string
	}{
		{nil, `{}`},
		{map[string]any{"q": "x"}, `{"q":"x"}`},
		{json.RawMessage(`{"a":1}`), `{"a":1}`},
		{`{"s":true}`, `{"s":true}`},
		{"not json", `"not json"`},
	} {
		if got := (ToolCall{Args: tc.args}).argsJSON(); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.args, got, tc.want)
		}
	}
}

func TestUnknownPathIsLoggedAnd404(t *testing.T) {
	for name, s := range map[string]*Server{"anthropic": NewAnthropic(nil), "responses": NewResponses(nil), "gemini": NewGemini(nil), "chat": NewChat(nil)} {
		resp := post(t, s, "/nope", `{}`)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d", name, resp.StatusCode)
		}
		if rs := s.Requests(); len(rs) != 1 || rs[0].Path != "/nope" || rs[0].Call != nil {
			t.Errorf("%s: logged %+v", name, rs)
		}
		if len(s.Calls()) != 0 {
			t.Errorf("%s: a call was recorded", name)
		}
		s.Close()
	}
}
