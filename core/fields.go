package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"regexp"
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

// CheckIdentifiers refuses the first identifier holding what a reader
// cannot see or a terminal would obey (text.CheckIdentifier: control
// characters, escape sequences, invisible formatting characters), naming
// its field: tags, then each name and value of fields in turn. The value
// is not repeated in the message.
func CheckIdentifiers(tags []string, fields ...string) *Error {
	if err := text.CheckIdentifiers("tags", tags); err != nil {
		return invalidText(err)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		if err := text.CheckIdentifier(fields[i], fields[i+1]); err != nil {
			return invalidText(err)
		}
	}
	return nil
}

// cleanLines are values read out of free text (the tags of a "[a,b]:"
// prefix) as clean one-line identifiers (text.CleanLine).
func cleanLines(vs []string) []string {
	for i, v := range vs {
		vs[i] = text.CleanLine(v)
	}
	return vs
}

// invalidText is a text.FieldError as the API's invalid_request.
func invalidText(err error) *Error {
	if fe, ok := errors.AsType[*text.FieldError](err); ok {
		return Invalid(fe.Field, "%s", fe.Msg)
	}
	return Invalid("", "%s", err.Error())
}

// fieldLead is put before a field while it is redacted (and taken off
// after): see RedactField.
const fieldLead = "field "

// fieldMemoMax is how many short fields the redactor remembers the
// redaction of: an import writes the same few actors, reasons and
// sessions on every row, inside its write transaction.
const (
	fieldMemoMax   = 4096
	fieldMemoBytes = 128
)

type fieldMemo struct {
	out string
	n   int
}

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
	if len(v) <= fieldMemoBytes {
		if m, ok := r.memo.Load(v); ok {
			f := m.(fieldMemo)
			if f.n > 0 {
				r.count.Add(int64(f.n))
			}
			return f.out
		}
	}
	out, n := r.field(v)
	if len(v) <= fieldMemoBytes && r.memoSize.Load() < fieldMemoMax {
		if _, loaded := r.memo.LoadOrStore(v, fieldMemo{out, n}); !loaded {
			r.memoSize.Add(1)
		}
	}
	if n > 0 {
		r.count.Add(int64(n))
	}
	return out
}

// field redacts v as Field says, returning how many secrets it removed.
func (r *Redactor) field(v string) (string, int) {
	out, n := text.Redact(fieldLead + v)
	if !strings.HasPrefix(out, fieldLead) {
		return text.Redact(v) // a rule reached into the lead: redact the field whole
	}
	return out[len(fieldLead):], n
}

// keyMark starts an identifier the redactor replaced by its digest.
const keyMark = "redacted-sha256:"

// Key removes a secret from an identifier whose equality matters (an
// idempotency key, a session id): one that holds a secret (Field would
// change it) is stored as a digest of itself, so the same key still finds
// its memory and two keys stay two, and the secret is not stored.
func (r *Redactor) Key(v string) string {
	if v == "" || strings.HasPrefix(v, keyMark) || r.Field(v) == v {
		return v
	}
	sum := sha256.Sum256([]byte(v))
	return keyMark + hex.EncodeToString(sum[:12])
}

// Actor is a with its name, session and request ids redacted (Field, Key):
// they are stored as updated_by and in history.
func (r *Redactor) Actor(a Actor) Actor {
	a.Name, a.SessionID, a.RequestID = r.Name(a.Name), r.Key(a.SessionID), r.Key(a.RequestID)
	return a
}

// Name is Field for who wrote something (an actor, a memory's who or
// updated_by), leaving the name the auth gate gives a token's writes as
// it is.
func (r *Redactor) Name(v string) string {
	if tokenActor.MatchString(v) {
		return v
	}
	return r.Field(v)
}

// tokenActor is the name the auth gate gives a token's writes
// (auth.ActorName: token:ROLE:ID, its public id, not a secret), which the
// rule for "token: value" would take for one.
var tokenActor = regexp.MustCompile(`^token:[a-z]+(:[0-9a-f]{16})?(#p[0-9a-f]{16})?$`)

// memoryFields removes secrets from every field but content of a row
// about to be inserted: tags, who, why, source id, category, updated by,
// runtime path, source path and section, the vector clock, and the
// session id and idempotency key (Key: their equality is kept). Content
// is redacted where it enters, before it is hashed.
func (r *Redactor) memoryFields(m *storage.Memory) {
	for i, t := range m.Tags {
		m.Tags[i] = r.Field(t)
	}
	m.Who, m.Why = r.Name(m.Who), r.Field(m.Why)
	m.SourceID, m.Category = r.Field(m.SourceID), r.Field(m.Category)
	m.UpdatedBy, m.RuntimePath = r.Name(m.UpdatedBy), r.Field(m.RuntimePath)
	m.SourcePath, m.SourceSection = r.Field(m.SourcePath), r.Field(m.SourceSection)
	m.SessionID, m.IdempotencyKey = r.Key(m.SessionID), r.Key(m.IdempotencyKey)
	if m.VectorClock != "" && m.VectorClock != "{}" {
		m.VectorClock = string(r.JSON(json.RawMessage(m.VectorClock)))
	}
}

// patch removes secrets from the free-text fields a patch sets.
func (r *Redactor) patch(p *Patch) {
	if p.Content != nil {
		c := r.Text(*p.Content)
		p.Content = &c
	}
	if p.Who != nil {
		w := r.Name(*p.Who)
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
