package text

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// ---------------------------------------------------------------------------

// Transcript is a session transcript normalized to "User: …" and
// "Assistant: …" lines (or the plain text it was).
type Transcript struct {
	Text        string
	Format      string // claude-code, codex, gemini, jsonl, text
	SourceBytes int64
	Truncated   bool
	// Skipped counts the lines left out as unreadable: not JSON in a
	// JSONL transcript, binary (NUL bytes, invalid UTF-8), or longer than
	// a line may be.
	Skipped int
	// ReadErr is why reading stopped early ("" when it read to the end):
	// what came before is kept.
	ReadErr string
}

// Warning says what of the transcript could not be read ("" when all of
// it was): the session's record keeps it, and the learning reads what was.
func (t *Transcript) Warning() string {
	var parts []string
	if t.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d unreadable lines left out (not JSON, binary or over %d MiB)", t.Skipped, maxTranscriptLine>>20))
	}
	if t.ReadErr != "" {
		parts = append(parts, "reading stopped after "+fmt.Sprint(t.SourceBytes)+" bytes: "+t.ReadErr)
	}
	if t.Truncated {
		parts = append(parts, "cut to its beginning and end (hooks.transcript_max_chars)")
	}
	if len(parts) == 0 {
		return ""
	}
	return "transcript: " + strings.Join(parts, "; ")
}

// maxTranscriptLine: longer JSONL lines (pasted images, huge tool output)
// are skipped without being held in memory.
const maxTranscriptLine = 8 << 20

var harnessNoise = lazyRegexp(`(?s)<(system-reminder|environment_context|user_instructions|command-message|local-command-stdout|hook_context)>.*?</(?:system-reminder|environment_context|user_instructions|command-message|local-command-stdout|hook_context)>`)

// StripHarnessBlocks removes what harnesses wrap around a user's words
// (Gemini CLI's <hook_context>, which holds what hooks injected, cairn's
// context among them; Claude Code's <system-reminder>; Codex's
// <environment_context>, …), whole blocks, whatever is inside them. Run it
// before StripInjected: a cairn block cut short inside a wrapper has no
// closing marker, and StripInjected would take everything after it.
func StripHarnessBlocks(s string) string {
	if !strings.Contains(s, "</") {
		return s
	}
	return harnessNoise().ReplaceAllString(s, "")
}

// NormalizeTranscript streams r and keeps the conversation: for Claude Code
// JSONL the user and assistant message text (tool calls, tool results and
// thinking dropped), for Codex JSONL the message items, for Gemini CLI's
// chat JSONL the user and gemini messages (tool calls, function responses
// and thoughts dropped), for other JSONL any role/content records (a
// content string or parts, or Cursor's message.content), else the text
// itself. What harnesses wrap around a prompt (Gemini CLI's
// <hook_context>, Claude Code's <system-reminder>, …) is dropped. cairn's injected blocks are
// removed. Beyond maxChars bytes the beginning and the end are kept, with a
// marker saying how much was left out; memory stays bounded by maxChars
// whatever the input's size. What cannot be read (a line that is not JSON
// in a JSONL transcript, binary, too long; a read that fails midway) is
// left out and counted (Transcript.Warning), never an error: the rest is
// kept.
func NormalizeTranscript(r io.Reader, maxChars int) (*Transcript, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	out := newHeadTail(maxChars)
	tr := &Transcript{Format: ""}
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		tr.SourceBytes += int64(len(chunk))
		if len(line)+len(chunk) <= maxTranscriptLine {
			line = append(line, chunk...)
		} else {
			line = append(line[:0], "\x00skip"...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if string(line) == "\x00skip" {
			tr.Skipped++
		} else if len(line) > 0 {
			normalizeLine(tr, out, line)
		}
		line = line[:0]
		if err == io.EOF {
			break
		}
		if err != nil {
			tr.ReadErr = err.Error()
			break
		}
	}
	if tr.Format == "" {
		tr.Format = "text"
	}
	tr.Text, tr.Truncated = out.String()
	tr.Text = strings.TrimSpace(StripInjected(tr.Text))
	return tr, nil
}

func normalizeLine(tr *Transcript, out *headTail, line []byte) {
	trimmed := strings.TrimSpace(string(line))
	if tr.Format == "" && trimmed == "" {
		return
	}
	if tr.Format == "" {
		tr.Format = "text"
		if strings.HasPrefix(trimmed, "{") {
			tr.Format = "jsonl" // a damaged first record is one unreadable line, not a text transcript
		}
	}
	if tr.Format == "text" {
		if strings.IndexByte(trimmed, 0) >= 0 || !utf8.ValidString(trimmed) {
			tr.Skipped++ // binary
			return
		}
		out.Write(string(line))
		return
	}
	if trimmed == "" {
		return
	}
	var rec transcriptRecord
	if json.Unmarshal([]byte(trimmed), &rec) != nil {
		tr.Skipped++
		return
	}
	role, text := rec.extract(tr)
	text = strings.TrimSpace(StripInjected(StripHarnessBlocks(text)))
	if text == "" {
		return
	}
	switch role {
	case "user":
		out.Write("User: " + text + "\n")
	case "assistant":
		out.Write("Assistant: " + text + "\n")
	}
}

type transcriptRecord struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	IsMeta  bool   `json:"isMeta"`
	Message *struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	Payload *struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"payload"`
	Content json.RawMessage `json:"content"`
	Text    string          `json:"text"`
}

func (rec *transcriptRecord) extract(tr *Transcript) (role, text string) {
	switch {
	case rec.Message != nil && (rec.Type == "user" || rec.Type == "assistant"):
		if tr.Format == "jsonl" {
			tr.Format = "claude-code"
		}
		if rec.IsMeta {
			return "", ""
		}
		return rec.Message.Role, contentText(rec.Message.Content)
	case (rec.Type == "user" || rec.Type == "gemini") && len(rec.Content) > 0 && rec.Role == "":
		// Gemini CLI's chat file: {id, timestamp, type, content, …}.
		if tr.Format == "jsonl" {
			tr.Format = "gemini"
		}
		role = "user"
		if rec.Type == "gemini" {
			role = "assistant"
		}
		return role, geminiText(rec.Content)
	case rec.Type == "response_item" && rec.Payload != nil:
		if tr.Format == "jsonl" {
			tr.Format = "codex"
		}
		if rec.Payload.Type != "message" {
			return "", ""
		}
		return rec.Payload.Role, contentText(rec.Payload.Content)
	case rec.Role != "":
		if rec.Type == "message" && tr.Format == "jsonl" {
			tr.Format = "codex"
		}
		if rec.Text != "" {
			return rec.Role, rec.Text
		}
		if len(rec.Content) == 0 && rec.Message != nil {
			return rec.Role, contentText(rec.Message.Content) // Cursor
		}
		return rec.Role, contentText(rec.Content)
	}
	return "", ""
}

// contentText is the text of a message content: a string, or the text
// parts of an array (text, input_text, output_text); tool calls, tool
// results, images and thinking are left out.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "text", "input_text", "output_text":
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// geminiText is the text of a Gemini CLI message's content: a string, a
// part, or parts; a part's text unless it is a thought (function calls and
// responses have none).
func geminiText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	type part struct {
		Text    string `json:"text"`
		Thought bool   `json:"thought"`
	}
	var parts []part
	if json.Unmarshal(raw, &parts) != nil {
		var one part
		if json.Unmarshal(raw, &one) != nil {
			return ""
		}
		parts = []part{one}
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Thought || p.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// headTail keeps the first and the last max/2 bytes written.
type headTail struct {
	max     int
	head    strings.Builder
	tail    []string
	tailLen int
	dropped int64
}

func newHeadTail(max int) *headTail { return &headTail{max: max} }

func (h *headTail) Write(s string) {
	if room := h.max/2 - h.head.Len(); room > 0 && h.dropped == 0 && len(h.tail) == 0 {
		if len(s) <= room {
			h.head.WriteString(s)
			return
		}
		cut := runeCut(s, room)
		h.head.WriteString(s[:cut])
		s = s[cut:]
	}
	h.tail = append(h.tail, s)
	h.tailLen += len(s)
	for h.tailLen > h.max-h.max/2 && len(h.tail) > 0 {
		over := h.tailLen - (h.max - h.max/2)
		if over >= len(h.tail[0]) {
			h.dropped += int64(len(h.tail[0]))
			h.tailLen -= len(h.tail[0])
			h.tail = h.tail[1:]
			continue
		}
		cut := runeCut(h.tail[0], over)
		if cut < over {
			cut = over
			for cut < len(h.tail[0]) && !utf8.RuneStart(h.tail[0][cut]) {
				cut++
			}
		}
		h.dropped += int64(cut)
		h.tailLen -= cut
		h.tail[0] = h.tail[0][cut:]
	}
}

// runeCut is the largest index <= n that starts a rune in s.
func runeCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

func (h *headTail) String() (string, bool) {
	if h.dropped == 0 {
		return h.head.String() + strings.Join(h.tail, ""), false
	}
	return h.head.String() + fmt.Sprintf("\n[... %d bytes of transcript omitted ...]\n", h.dropped) + strings.Join(h.tail, ""), true
}
