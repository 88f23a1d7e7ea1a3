package core

import (
	"bytes"
	"encoding/json"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// Bounds and redaction of the fields around a memory's content. Content has
// its own guardrails (memory.go); these keep every other field a readable
// size and free of secrets, whichever way it arrives.

// CheckTags refuses a tag list longer than config.MaxTags or holding a tag
// longer than config.MaxTagChars characters, naming field. The tag itself is
// not repeated in the message (it may be a secret).
func CheckTags(field string, tags []string) *Error {
	if len(tags) > config.MaxTags {
		return Invalid(field, "%s has %d tags; at most %d are allowed", field, len(tags), config.MaxTags)
	}
	for i, t := range tags {
		if n := text.CharCount(t); n > config.MaxTagChars {
			return Invalid(field, "%s[%d] is %d characters; a tag has at most %d", field, i, n, config.MaxTagChars)
		}
	}
	return nil
}

// CheckFilter bounds a memory filter: its tags, each a condition of the
// query (hundreds of them overflow SQLite's expression tree).
func CheckFilter(f storage.MemoryFilter) *Error {
	return CheckTags("tags", f.Tags)
}

// redactFields removes secrets from the free-text fields of a row about to
// be inserted: tags, who, why, source id and category (content is redacted
// where it enters, before it is hashed).
func (s *Service) redactFields(m *storage.Memory) {
	for i, t := range m.Tags {
		m.Tags[i] = s.Redact(t)
	}
	m.Who, m.Why, m.SourceID, m.Category = s.Redact(m.Who), s.Redact(m.Why), s.Redact(m.SourceID), s.Redact(m.Category)
}

// redactPatch removes secrets from the free-text fields a patch sets.
func (s *Service) redactPatch(p *Patch) {
	if p.Content != nil {
		c := s.Redact(*p.Content)
		p.Content = &c
	}
	if p.Who != nil {
		w := s.Redact(*p.Who)
		p.Who = &w
	}
	if p.Tags != nil {
		tags := make([]string, len(*p.Tags))
		for i, t := range *p.Tags {
			tags[i] = s.Redact(t)
		}
		p.Tags = &tags
	}
}

// RedactJSON removes secrets from every string of a JSON document (keys
// and values), keeping it valid JSON; a document that does not parse is
// returned as is (the caller validates it).
func (s *Service) RedactJSON(raw json.RawMessage) json.RawMessage {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers come back as written
	if dec.Decode(&v) != nil {
		return raw
	}
	out, err := json.Marshal(s.redactValue(v))
	if err != nil {
		return raw
	}
	return out
}

func (s *Service) redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return s.Redact(x)
	case []any:
		for i := range x {
			x[i] = s.redactValue(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[s.Redact(k)] = s.redactValue(val)
		}
		return out
	}
	return v
}
