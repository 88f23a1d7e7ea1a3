package core

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/evolution"
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
	switch f.Scope {
	case "", evolution.ScopeProject, evolution.ScopeUser, evolution.ScopeAgent:
	default:
		return Invalid("scope", "scope must be project, user or agent")
	}
	return CheckTags("tags", f.Tags)
}

// fieldLead is put before a field while it is redacted (and taken off
// after): see RedactField.
const fieldLead = "field "

// Field removes secrets from a short field: a tag, an actor, a
// reason, a source id, a title. Redact's env-file rule (NAME: value at the
// start of a line, for pasted .env files) would take the way such fields
// are written, session:s-42 or token:agent, for secrets; so the field is
// redacted as text within a line, by every other rule. A field of several
// lines keeps the env-file rule on its later lines.
func (r *Redactor) Field(v string) string {
	if v == "" {
		return v
	}
	out, n := text.Redact(fieldLead + v)
	if !strings.HasPrefix(out, fieldLead) {
		return r.Text(v) // a rule reached into the lead: redact the field whole
	}
	if n > 0 {
		r.count.Add(int64(n))
	}
	return out[len(fieldLead):]
}

// memoryFields removes secrets from the free-text fields of a row about to
// be inserted: tags, who, why, source id and category (content is redacted
// where it enters, before it is hashed).
func (r *Redactor) memoryFields(m *storage.Memory) {
	for i, t := range m.Tags {
		m.Tags[i] = r.Field(t)
	}
	m.Who, m.Why = r.Field(m.Who), r.Field(m.Why)
	m.SourceID, m.Category = r.Field(m.SourceID), r.Field(m.Category)
}

// patch removes secrets from the free-text fields a patch sets.
func (r *Redactor) patch(p *Patch) {
	if p.Content != nil {
		c := r.Text(*p.Content)
		p.Content = &c
	}
	if p.Who != nil {
		w := r.Field(*p.Who)
		p.Who = &w
	}
	if p.Tags != nil {
		tags := make([]string, len(*p.Tags))
		for i, t := range *p.Tags {
			tags[i] = r.Field(t)
		}
		p.Tags = &tags
	}
}

// JSON removes secrets from every string of a JSON document (keys and
// values, as fields), keeping it valid JSON; a document that does not
// parse is returned as is (the caller validates it).
func (r *Redactor) JSON(raw json.RawMessage) json.RawMessage {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers come back as written
	if dec.Decode(&v) != nil {
		return raw
	}
	out, err := json.Marshal(r.value(v))
	if err != nil {
		return raw
	}
	return out
}

func (r *Redactor) value(v any) any {
	switch x := v.(type) {
	case string:
		return r.Field(x)
	case []any:
		for i := range x {
			x[i] = r.value(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[r.Field(k)] = r.value(val)
		}
		return out
	}
	return v
}
