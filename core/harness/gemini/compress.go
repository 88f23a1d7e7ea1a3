package gemini

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Gemini CLI fires PreCompress with trigger auto before every model call
// of a session with history, and only then decides whether to compress:
// when the last prompt's token count has reached the compression
// threshold (settings model.compressionThreshold, else 0.5) of the
// model's token limit (1,048,576 tokens; 256,000 for Gemma 4). The
// values are Gemini CLI 0.61.0's (ChatCompressionService.compress,
// tokenLimit, DEFAULT_COMPRESSION_TOKEN_THRESHOLD).
const (
	defaultThreshold  = 0.5
	defaultTokenLimit = 1048576
	gemma4TokenLimit  = 256000
)

// chatTail is how much of the end of the chat file is read for the last
// prompt's token count: the last model message with tokens is near the
// end (a message is one line; a long one is skipped).
const chatTail = 256 << 10

// compressing reports whether a PreCompress hook's input is for a
// compression Gemini CLI will make: a /compress (trigger manual) always;
// an auto one when the chat file (transcript_path) says the last prompt
// held at least the threshold of the model's token limit, the threshold
// read from the user's and the workspace's settings as Gemini CLI merges
// them (the workspace's wins). A threshold Gemini CLI gets from its
// server's experiments cannot be known here: the default stands in.
func compressing(in map[string]any, home string) bool {
	switch in["trigger"] {
	case "manual":
		return true
	case "auto":
	default:
		return false
	}
	path, _ := in["transcript_path"].(string)
	tokens, model := lastPromptTokens(path)
	if tokens <= 0 {
		return false
	}
	threshold := defaultThreshold
	for _, f := range settingsFiles(in, home) {
		if v, ok := settingsThreshold(f); ok {
			threshold = v
		}
	}
	limit := defaultTokenLimit
	if strings.HasPrefix(strings.ToLower(model), "gemma-4") {
		limit = gemma4TokenLimit
	}
	return float64(tokens) >= threshold*float64(limit)
}

// settingsFiles are the settings that can hold the threshold, in the
// order Gemini CLI applies them: the user's, then the workspace's.
func settingsFiles(in map[string]any, home string) []string {
	var out []string
	if home != "" {
		out = append(out, filepath.Join(home, ".gemini", "settings.json"))
	}
	if cwd, _ := in["cwd"].(string); filepath.IsAbs(cwd) {
		if ws := filepath.Join(cwd, ".gemini", "settings.json"); len(out) == 0 || ws != out[0] {
			out = append(out, ws)
		}
	}
	return out
}

// settingsThreshold is model.compressionThreshold of a settings file, if
// it sets one (a file that is missing or not plain JSON sets none).
func settingsThreshold(path string) (float64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	var s struct {
		Model struct {
			CompressionThreshold *float64 `json:"compressionThreshold"`
		} `json:"model"`
	}
	if json.Unmarshal(data, &s) != nil || s.Model.CompressionThreshold == nil {
		return 0, false
	}
	v := *s.Model.CompressionThreshold
	if v <= 0 || v > 1 { // Gemini CLI takes 0 for "not set"
		return 0, false
	}
	return v, true
}

// lastPromptTokens is the input token count of the last model message in
// a Gemini CLI chat file that has one, and its model; 0 when there is
// none or the file cannot be read.
func lastPromptTokens(path string) (int, string) {
	if path == "" || !filepath.IsAbs(path) {
		return 0, ""
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0, ""
	}
	off := max(0, st.Size()-chatTail)
	data, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return 0, ""
	}
	lines := bytes.Split(data, []byte("\n"))
	if off > 0 {
		lines = lines[1:] // the first is cut
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if !bytes.Contains(lines[i], []byte(`"tokens"`)) {
			continue
		}
		var m struct {
			Type   string `json:"type"`
			Model  string `json:"model"`
			Tokens struct {
				Input int `json:"input"`
			} `json:"tokens"`
		}
		if json.Unmarshal(lines[i], &m) == nil && m.Type == "gemini" && m.Tokens.Input > 0 {
			return m.Tokens.Input, m.Model
		}
	}
	return 0, ""
}
