package bench

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// A scripted model: no model runs on a benchmark machine, so the pipeline's
// model paths are measured against an OpenAI-compatible chat endpoint that
// answers from a script. It answers the prospective-indexing prompt with
// the script's questions and every other prompt (extraction, decisions)
// with nothing to do, so what changes against the heuristic provider is
// the hints alone.
//
// Scripts:
//   - "oracle": the benchmark's own questions whose evidence is the memory.
//     A ceiling, not a product figure: the best a model that foresaw every
//     question could add through the hints index.
//   - "echo": a question restating the memory's first words ("What about
//     ...?"), the least a weak model writes: whether hints of no new words
//     cost anything.

// ScriptedLLM is a running scripted model.
type ScriptedLLM struct {
	URL    string // base URL for pipeline_v2.base_url
	srv    *http.Server
	ln     net.Listener
	script string
	oracle map[string][]string // memory content (spaces collapsed) -> questions
}

// ScriptedSets are the config overrides that point a server's pipeline at
// the scripted model.
func (s *ScriptedLLM) ScriptedSets() []string {
	return []string{"pipeline_v2.provider=openai", "pipeline_v2.base_url=" + s.URL, "pipeline_v2.model=scripted",
		"pipeline_v2.api_key=scripted", "hints.enabled=true", "hints.llm=true"}
}

// StartScriptedLLM serves script ("oracle" or "echo") for samples on a
// loopback port.
func StartScriptedLLM(script string, samples []Sample) (*ScriptedLLM, error) {
	s := &ScriptedLLM{script: script, oracle: map[string][]string{}}
	if script == "oracle" {
		for _, sm := range samples {
			byDia := map[string]string{}
			for _, t := range sm.Turns {
				byDia[t.DiaID] = Content(t)
			}
			for _, q := range sm.Questions {
				for _, e := range q.Evidence {
					if c, ok := byDia[e]; ok {
						k := strings.Join(strings.Fields(c), " ")
						s.oracle[k] = append(s.oracle[k], q.Question)
					}
				}
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.ln = ln
	s.URL = "http://" + ln.Addr().String() + "/v1"
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *ScriptedLLM) Close() error { return s.srv.Close() }

var hintsMemory = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)might ask later that this memory answers.*?\nMemory:\n(.*)$`)
})

func (s *ScriptedLLM) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	prompt := ""
	if n := len(req.Messages); n > 0 {
		prompt = req.Messages[n-1].Content
	}
	answer := `{"facts": [], "entities": []}`
	if m := hintsMemory().FindStringSubmatch(prompt); m != nil {
		b, _ := json.Marshal(map[string][]string{"questions": s.questions(strings.TrimSpace(m[1]))})
		answer = string(b)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "scripted", "object": "chat.completion", "model": "scripted",
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
			"message": map[string]string{"role": "assistant", "content": answer}}},
	})
}

func (s *ScriptedLLM) questions(memory string) []string {
	switch s.script {
	case "oracle":
		return s.oracle[strings.Join(strings.Fields(memory), " ")]
	default: // echo
		words := strings.Fields(memory)
		if len(words) > 9 {
			words = words[:9]
		}
		return []string{"What about " + strings.TrimRight(strings.Join(words, " "), ".,!?;:") + "?"}
	}
}

// ScriptNames are the scripts StartScriptedLLM knows.
var ScriptNames = []string{"oracle", "echo"}
