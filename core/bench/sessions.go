package bench

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode"
)

// The session benchmark's corpus: developer/agent coding sessions over a
// few projects, later questions a developer asks about them (each with the
// sessions that answer it, or none for questions about things never
// discussed), and the noise corpus: the chatter statements of those
// sessions (requests to the agent, the agent narrating its actions,
// questions, acknowledgements, greetings, code, one-off progress, jokes)
// that must never become memories. Sessions and questions carry a split:
// "dev" ones may be looked at while tuning the extractor, "held-out" ones
// only measure it.

//go:embed corpus/sessions.json
var defaultSessionCorpus []byte

// DefaultSessionCorpusName names the embedded corpus in reports.
const DefaultSessionCorpusName = "built-in coding-sessions corpus"

// Splits of a session corpus.
const (
	SplitDev     = "dev"
	SplitHeldOut = "held-out"
)

// SessionCorpus is a session benchmark's data.
type SessionCorpus struct {
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	Projects    []CorpusProject  `json:"projects"`
	Sessions    []CorpusSession  `json:"sessions"`
	Questions   []CorpusQuestion `json:"questions"`
	Noise       []NoiseStatement `json:"noise"`
}

// CorpusProject is one repository the sessions work in.
type CorpusProject struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Subdir is the folder inside the repository later questions are
	// asked from.
	Subdir string `json:"subdir,omitempty"`
}

// CorpusSession is one Claude Code session.
type CorpusSession struct {
	ID      string `json:"id"`
	Project string `json:"project"`
	Split   string `json:"split"`
	// Cwd is the folder inside the project's repository the session runs
	// in ("" for its root).
	Cwd   string `json:"cwd,omitempty"`
	Title string `json:"title,omitempty"`
	// Compact, when set, compacts the session's context after some turns
	// (as /compact does): the pre-compact hook, then session start with
	// source "compact", whose recovery digest is measured.
	Compact *CorpusCompaction `json:"compact,omitempty"`
	Turns   []CorpusTurn      `json:"turns"`
}

// CorpusCompaction is a compaction inside a session.
type CorpusCompaction struct {
	AfterTurn    int    `json:"after_turn"`   // turns before it, 1 to len(turns)-1
	Instructions string `json:"instructions"` // what the user typed after /compact
}

// CorpusTurn is one user prompt and the agent's reply to it.
type CorpusTurn struct {
	User      string           `json:"user"`
	Assistant []AssistantBlock `json:"assistant"`
}

// AssistantBlock is one part of the agent's reply: text, or a tool call
// (Bash, Read, Edit, Write, Grep, Glob) with what the tool returned.
type AssistantBlock struct {
	Text    string `json:"text,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Input   string `json:"input,omitempty"`
	Output  string `json:"output,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
}

// CorpusQuestion is a prompt a developer sends later, in a new session of
// Project. Answers are the sessions that hold the answer; none means it
// asks about something never discussed.
type CorpusQuestion struct {
	ID      string   `json:"id"`
	Project string   `json:"project"`
	Split   string   `json:"split"`
	Answers []string `json:"answers"`
	Prompt  string   `json:"prompt"`
}

// NeverDiscussed reports whether no session answers q.
func (q CorpusQuestion) NeverDiscussed() bool { return len(q.Answers) == 0 }

// NoiseStatement is chatter said in Session that must never become a
// memory.
type NoiseStatement struct {
	Session string `json:"session"`
	Text    string `json:"text"`
}

// corpusTools are the tool names a corpus may use, as Claude Code names them.
var corpusTools = []string{"Bash", "Read", "Edit", "Write", "Grep", "Glob"}

// DefaultSessionCorpus returns the embedded corpus.
func DefaultSessionCorpus() (*SessionCorpus, error) {
	return ParseSessionCorpus(defaultSessionCorpus)
}

// LoadSessionCorpus reads a corpus file; errors name the file and the field.
func LoadSessionCorpus(path string) (*SessionCorpus, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := ParseSessionCorpus(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseSessionCorpus decodes and validates a corpus.
func ParseSessionCorpus(b []byte) (*SessionCorpus, error) {
	var c SessionCorpus
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("not a session corpus: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate checks the corpus is complete and consistent: names are unique
// and simple, every session has turns, every question's project and
// answers exist (and a question answered only by held-out sessions is
// itself held out), and every noise statement is said in its session.
// The error names the field.
func (c *SessionCorpus) Validate() error {
	if len(c.Projects) == 0 {
		return errors.New("projects: none")
	}
	projects := map[string]bool{}
	for i, p := range c.Projects {
		f := fmt.Sprintf("projects[%d]", i)
		if !simpleName(p.Name) {
			return fmt.Errorf("%s.name %q: want letters, digits, '-', '_' or '.'", f, p.Name)
		}
		if projects[p.Name] {
			return fmt.Errorf("%s.name %q: repeats an earlier project", f, p.Name)
		}
		if !relativePath(p.Subdir) {
			return fmt.Errorf("%s.subdir %q: want a relative path inside the repository", f, p.Subdir)
		}
		projects[p.Name] = true
	}
	if len(c.Sessions) == 0 {
		return errors.New("sessions: none")
	}
	sessions := map[string]*CorpusSession{}
	for i := range c.Sessions {
		s := &c.Sessions[i]
		f := fmt.Sprintf("sessions[%d]", i)
		if !simpleName(s.ID) {
			return fmt.Errorf("%s.id %q: want letters, digits, '-', '_' or '.'", f, s.ID)
		}
		if sessions[s.ID] != nil {
			return fmt.Errorf("%s.id %q: repeats an earlier session", f, s.ID)
		}
		if !projects[s.Project] {
			return fmt.Errorf("%s.project %q: not one of projects", f, s.Project)
		}
		if s.Split != SplitDev && s.Split != SplitHeldOut {
			return fmt.Errorf("%s.split %q: want %s or %s", f, s.Split, SplitDev, SplitHeldOut)
		}
		if !relativePath(s.Cwd) {
			return fmt.Errorf("%s.cwd %q: want a relative path inside the repository", f, s.Cwd)
		}
		if len(s.Turns) == 0 {
			return fmt.Errorf("%s.turns: none", f)
		}
		if s.Compact != nil && (s.Compact.AfterTurn < 1 || s.Compact.AfterTurn >= len(s.Turns)) {
			return fmt.Errorf("%s.compact.after_turn %d: want 1 to %d (a compaction between two turns)", f, s.Compact.AfterTurn, len(s.Turns)-1)
		}
		for j, t := range s.Turns {
			tf := fmt.Sprintf("%s.turns[%d]", f, j)
			if strings.TrimSpace(t.User) == "" {
				return fmt.Errorf("%s.user: empty", tf)
			}
			for k, b := range t.Assistant {
				bf := fmt.Sprintf("%s.assistant[%d]", tf, k)
				switch {
				case b.Tool == "" && strings.TrimSpace(b.Text) == "":
					return fmt.Errorf("%s: neither text nor tool", bf)
				case b.Tool != "" && b.Text != "":
					return fmt.Errorf("%s: both text and tool; one block is one of them", bf)
				case b.Tool != "" && !slices.Contains(corpusTools, b.Tool):
					return fmt.Errorf("%s.tool %q: want one of %s", bf, b.Tool, strings.Join(corpusTools, ", "))
				case b.Tool != "" && strings.TrimSpace(b.Input) == "":
					return fmt.Errorf("%s.input: empty", bf)
				}
			}
		}
		sessions[s.ID] = s
	}
	ids := map[string]bool{}
	for i, q := range c.Questions {
		f := fmt.Sprintf("questions[%d]", i)
		if q.ID == "" || ids[q.ID] {
			return fmt.Errorf("%s.id %q: empty or repeats an earlier question", f, q.ID)
		}
		ids[q.ID] = true
		if !projects[q.Project] {
			return fmt.Errorf("%s.project %q: not one of projects", f, q.Project)
		}
		if q.Split != SplitDev && q.Split != SplitHeldOut {
			return fmt.Errorf("%s.split %q: want %s or %s", f, q.Split, SplitDev, SplitHeldOut)
		}
		if strings.TrimSpace(q.Prompt) == "" {
			return fmt.Errorf("%s.prompt: empty", f)
		}
		held := false
		for _, a := range q.Answers {
			s := sessions[a]
			if s == nil {
				return fmt.Errorf("%s.answers: %q is not a session", f, a)
			}
			if s.Project != q.Project {
				return fmt.Errorf("%s.answers: session %q is of project %s, the question of %s", f, a, s.Project, q.Project)
			}
			held = held || s.Split == SplitHeldOut
		}
		if held && q.Split != SplitHeldOut {
			return fmt.Errorf("%s.split: a question a held-out session answers is held out too", f)
		}
	}
	for i, n := range c.Noise {
		f := fmt.Sprintf("noise[%d]", i)
		s := sessions[n.Session]
		if s == nil {
			return fmt.Errorf("%s.session %q: not a session", f, n.Session)
		}
		if strings.TrimSpace(n.Text) == "" {
			return fmt.Errorf("%s.text: empty", f)
		}
		if !s.says(n.Text) {
			return fmt.Errorf("%s.text %q: not said in session %s", f, clip(n.Text, 60), n.Session)
		}
	}
	return nil
}

// says reports whether text is part of what the session's user or agent
// wrote (tool output does not count: it never reaches a transcript's text).
func (s *CorpusSession) says(text string) bool {
	for _, t := range s.Turns {
		if strings.Contains(t.User, text) {
			return true
		}
		for _, b := range t.Assistant {
			if strings.Contains(b.Text, text) {
				return true
			}
		}
	}
	return false
}

func simpleName(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

func relativePath(p string) bool {
	if p == "" {
		return true
	}
	if strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if !simpleName(part) {
			return false
		}
	}
	return true
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Slice keeps the first n sessions of each project, the questions only
// they answer, the never-discussed questions of their projects (at most n
// per project) and their noise: a small corpus for tests. n < 1 keeps all.
func (c *SessionCorpus) Slice(n int) *SessionCorpus {
	if n < 1 {
		return c
	}
	out := &SessionCorpus{Name: c.Name, Description: c.Description, Projects: c.Projects}
	perProject := map[string]int{}
	kept := map[string]bool{}
	for _, s := range c.Sessions {
		if perProject[s.Project] < n {
			perProject[s.Project]++
			kept[s.ID] = true
			out.Sessions = append(out.Sessions, s)
		}
	}
	never := map[string]int{}
	for _, q := range c.Questions {
		if q.NeverDiscussed() {
			if perProject[q.Project] > 0 && never[q.Project] < n {
				never[q.Project]++
				out.Questions = append(out.Questions, q)
			}
			continue
		}
		all := true
		for _, a := range q.Answers {
			all = all && kept[a]
		}
		if all {
			out.Questions = append(out.Questions, q)
		}
	}
	for _, ns := range c.Noise {
		if kept[ns.Session] {
			out.Noise = append(out.Noise, ns)
		}
	}
	return out
}

// OnlySplit keeps the sessions and questions of one split and the noise of
// those sessions ("" or "all" keeps everything). Tuning looks at the dev
// split alone.
func (c *SessionCorpus) OnlySplit(split string) (*SessionCorpus, error) {
	switch split {
	case "", "all":
		return c, nil
	case SplitDev, SplitHeldOut:
	default:
		return nil, fmt.Errorf("split %q: want %s, %s or all", split, SplitDev, SplitHeldOut)
	}
	out := &SessionCorpus{Name: c.Name, Description: c.Description, Projects: c.Projects}
	kept := map[string]bool{}
	for _, s := range c.Sessions {
		if s.Split == split {
			kept[s.ID] = true
			out.Sessions = append(out.Sessions, s)
		}
	}
	for _, q := range c.Questions {
		if q.Split == split {
			out.Questions = append(out.Questions, q)
		}
	}
	for _, n := range c.Noise {
		if kept[n.Session] {
			out.Noise = append(out.Noise, n)
		}
	}
	return out, nil
}

// Session returns the session with id, or nil.
func (c *SessionCorpus) Session(id string) *CorpusSession {
	for i := range c.Sessions {
		if c.Sessions[i].ID == id {
			return &c.Sessions[i]
		}
	}
	return nil
}

// Project returns the project named name, or nil.
func (c *SessionCorpus) Project(name string) *CorpusProject {
	for i := range c.Projects {
		if c.Projects[i].Name == name {
			return &c.Projects[i]
		}
	}
	return nil
}

// WordSequence is s lower-cased as its words (letters and digits) one
// space apart: the form the benchmark compares memories and chatter in.
func WordSequence(s string) string {
	var b strings.Builder
	in := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if !in && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			in = true
		} else {
			in = false
		}
	}
	return b.String()
}

// chatterMinWords: containment is only evidence when the contained text
// has at least this many words ("ok" is inside many sentences).
const chatterMinWords = 3

// MatchesChatter reports whether a memory's content is a noise statement:
// one holds the other, compared as word sequences, and the one held has
// at least chatterMinWords words.
func MatchesChatter(memory, noise string) bool {
	m, n := WordSequence(memory), WordSequence(noise)
	if m == "" || n == "" {
		return false
	}
	holds := func(outer, inner string) bool {
		return strings.Count(inner, " ")+1 >= chatterMinWords && strings.Contains(" "+outer+" ", " "+inner+" ")
	}
	return holds(m, n) || holds(n, m)
}
