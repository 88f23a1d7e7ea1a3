package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core"

	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// body is a decoded JSON object whose fields are read one by one, so each
// type error names its field and unknown fields are tolerated.
type body map[string]json.RawMessage

// decodedBody is a request body the auth gate decoded (and, for a scoped
// token, confined) before the handler ran: the handler reads this very
// value, so what the gate checked is what the handler acts on.
type decodedBody struct {
	b    body
	size int64 // the bytes the caller sent
}

type decodedBodyKey struct{}

// readBody reads and decodes a JSON object request body within limit
// bytes; when the auth gate already decoded it, it returns that body.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) (body, *core.Error) {
	if d, ok := r.Context().Value(decodedBodyKey{}).(*decodedBody); ok {
		if d.size > limit {
			return nil, tooLarge(limit)
		}
		return d.b, nil
	}
	raw, e := readRaw(w, r, limit)
	if e != nil {
		return nil, e
	}
	return parseBody(raw)
}

// readRaw reads a request body of at most limit bytes.
func readRaw(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *core.Error) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return nil, bodyReadError(err, limit)
	}
	return raw, nil
}

func tooLarge(limit int64) *core.Error {
	return &core.Error{Code: core.CodeTooLarge,
		Message: fmt.Sprintf("request body exceeds %d bytes (server.max_body_bytes)", limit)}
}

// bodyReadError explains why a request body could not be read: too large,
// too slow (server.read_timeout), or cut off.
func bodyReadError(err error, limit int64) *core.Error {
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &mbe):
		return &core.Error{Code: core.CodeTooLarge,
			Message: fmt.Sprintf("request body exceeds %d bytes (server.max_body_bytes)", limit)}
	case errors.As(err, &ne) && ne.Timeout():
		return &core.Error{Code: CodeRequestTimeout, Message: "the request body did not arrive within server.read_timeout"}
	}
	return &core.Error{Code: core.CodeInvalidJSON, Message: "could not read request body"}
}

// readOptionalBody is readBody for routes whose body may be empty (an
// empty body is an empty object).
func readOptionalBody(w http.ResponseWriter, r *http.Request, limit int64) (body, *core.Error) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return nil, bodyReadError(err, limit)
	}
	if len(strings.TrimSpace(string(raw))) == 0 {
		return body{}, nil
	}
	return parseBody(raw)
}

// parseBody decodes raw as a JSON object.
func parseBody(raw []byte) (body, *core.Error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil, &core.Error{Code: core.CodeInvalidJSON, Message: "Invalid JSON body: the body is empty"}
	}
	if !utf8.Valid(raw) {
		return nil, &core.Error{Code: core.CodeInvalidJSON, Message: "Invalid JSON body: the body is not valid UTF-8"}
	}
	var b body
	if err := json.Unmarshal(raw, &b); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return nil, &core.Error{Code: core.CodeInvalidJSON, Message: "Invalid JSON body: the body must be a JSON object"}
		}
		return nil, &core.Error{Code: core.CodeInvalidJSON, Message: "Invalid JSON body: " + err.Error()}
	}
	if b == nil { // the literal null
		return nil, &core.Error{Code: core.CodeInvalidJSON, Message: "Invalid JSON body: the body must be a JSON object"}
	}
	if e := ambiguousKeys(raw); e != nil {
		return nil, e
	}
	return b, nil
}

// bodyKeys are the field names the API reads from a request body, by
// their case-folded form. Go's JSON decoding matches struct fields without
// regard to case while a body's map does not, so a key that differs from
// one of these only in case could be read one way by one reader and
// another way by the next: such bodies are refused instead.
var bodyKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		"id", "ids", "patches", "project", "cwd", "who", "harness", "content", "type", "tags", "importance",
		"confidence", "pinned", "reason", "force", "query", "mode", "limit", "expand", "explain", "track",
		"category", "why", "since", "until", "summary", "source", "transcript", "role", "scope", "metadata",
		"title", "url", "prompt", "if_version", "ifVersion", "session_key", "sessionKey", "session_id", "sessionId",
		"source_type", "sourceType", "source_id", "sourceId", "idempotency_key", "idempotencyKey",
		"runtime_path", "runtimePath", "changed_by", "changedBy", "keyword_query", "keywordQuery",
		"importance_min", "importanceMin", "confirm_token", "confirmToken", "transcript_path", "transcriptPath",
		"user_message", "userMessage", "user_prompt", "userPrompt", "last_assistant_message", "lastAssistantMessage",
		"ttlSeconds", "ttl_seconds", "batch_size", "batchSize", "match",
	} {
		m[foldKey(k)] = k
	}
	return m
}()

// foldKey maps s to one representative of the strings equal to it under
// Unicode case folding (strings.EqualFold, which is how encoding/json
// matches keys to fields: "ſ" is "s", the Kelvin sign is "k").
func foldKey(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}

// ambiguousKeys refuses a body (already known to be valid JSON) that
// repeats a key, or whose top-level object, or an object in one of its
// arrays (the patches of a batch), holds two keys equal but for case or a
// key equal to one the API reads but for case. Decoders disagree on such
// bodies (the last duplicate wins in one, the first or a case-folded
// match in another), and the auth gate and a handler must never read two
// different values from one body.
func ambiguousKeys(raw []byte) *core.Error {
	type frame struct {
		object    bool
		strict    bool // case-folded keys are compared too
		strictSub bool // objects directly inside are strict (the top-level object's arrays)
		expectKey bool
		keys      map[string]string
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].expectKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // io.EOF; the body was validated before
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expectKey {
			top := stack[n-1]
			k, isKey := tok.(string)
			if !isKey { // the closing brace
				stack = stack[:n-1]
				valueDone()
				continue
			}
			top.expectKey = false
			fold := k
			if top.strict {
				fold = foldKey(k)
			}
			if prev, dup := top.keys[fold]; dup {
				if prev == k {
					return core.Invalid(k, "Invalid JSON body: key %q appears more than once", k)
				}
				return core.Invalid(k, "Invalid JSON body: keys %q and %q differ only in case", prev, k)
			}
			if known, ok := bodyKeys[foldKey(k)]; ok && top.strict && known != k {
				return core.Invalid(k, "Invalid JSON body: unknown key %q; keys are case-sensitive (did you mean %q?)", k, known)
			}
			top.keys[fold] = k
			continue
		}
		parentStrictSub := len(stack) == 0 || stack[len(stack)-1].strictSub
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, strict: parentStrictSub, expectKey: true, keys: map[string]string{}})
		case json.Delim('['):
			stack = append(stack, &frame{strictSub: len(stack) == 1 && stack[0].object})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

// field returns the first present, non-null field among names (snake_case
// first, then the camelCase aliases Signet clients send) and its name.
func (b body) field(names ...string) (json.RawMessage, string) {
	for _, n := range names {
		if v, ok := b[n]; ok && string(v) != "null" {
			return v, n
		}
	}
	return nil, names[0]
}

// has reports whether any of names is present, null included.
func (b body) has(names ...string) bool {
	for _, n := range names {
		if _, ok := b[n]; ok {
			return true
		}
	}
	return false
}

// str reads an optional string field.
func (b body) str(names ...string) (string, bool, *core.Error) {
	raw, name := b.field(names...)
	if raw == nil {
		return "", false, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false, core.Invalid(name, "%s must be a string", name)
	}
	return s, true, nil
}

// number reads an optional finite number field.
func (b body) number(names ...string) (*float64, *core.Error) {
	raw, name := b.field(names...)
	if raw == nil {
		return nil, nil
	}
	var x float64
	if json.Unmarshal(raw, &x) != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return nil, core.Invalid(name, "%s must be a number", name)
	}
	return &x, nil
}

// integer reads an optional integer field, accepting a JSON number without
// a fraction or a string of digits.
func (b body) integer(names ...string) (*int64, *core.Error) {
	raw, name := b.field(names...)
	if raw == nil {
		return nil, nil
	}
	s := strings.Trim(string(raw), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if f, ferr := strconv.ParseFloat(s, 64); ferr == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			n = int64(f)
		} else {
			return nil, core.Invalid(name, "%s must be an integer", name)
		}
	}
	return &n, nil
}

// boolean reads an optional boolean, also accepting 1/0 and "true"/"false".
func (b body) boolean(names ...string) (*bool, *core.Error) {
	raw, name := b.field(names...)
	if raw == nil {
		return nil, nil
	}
	v, ok := parseBool(strings.Trim(string(raw), `"`))
	if !ok {
		return nil, core.Invalid(name, "%s must be a boolean", name)
	}
	return &v, nil
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes":
		return true, true
	case "false", "0", "no":
		return false, true
	}
	return false, false
}

// tags reads an optional tags field: an array of strings, a comma-separated
// string, or null (which clears tags where clearing makes sense).
func (b body) tags(names ...string) (*[]string, *core.Error) {
	var raw json.RawMessage
	name := names[0]
	for _, n := range names {
		if v, ok := b[n]; ok {
			raw, name = v, n
			break
		}
	}
	if raw == nil {
		return nil, nil
	}
	if string(raw) == "null" {
		empty := []string{}
		return &empty, nil
	}
	var t []string
	var s string
	var arr []string
	switch {
	case json.Unmarshal(raw, &s) == nil:
		t = text.SplitTags(s)
	case json.Unmarshal(raw, &arr) == nil:
		t = text.CleanTags(arr)
	default:
		return nil, core.Invalid(name, "%s must be a string, string array, or null", name)
	}
	if e := core.CheckTags(name, t); e != nil {
		return nil, e
	}
	return &t, nil
}

// strList reads an optional array of non-empty strings.
func (b body) strList(names ...string) ([]string, *core.Error) {
	raw, name := b.field(names...)
	if raw == nil {
		return nil, nil
	}
	var arr []string
	if json.Unmarshal(raw, &arr) != nil {
		return nil, core.Invalid(name, "%s must be an array of strings", name)
	}
	for _, s := range arr {
		if strings.TrimSpace(s) == "" {
			return nil, core.Invalid(name, "%s must not contain empty strings", name)
		}
	}
	return arr, nil
}

// parseTimeParam accepts RFC 3339 or a plain date and renders it in the
// stored layout so string comparison on created_at works.
func parseTimeParam(field, s string, endOfDay bool) (string, *core.Error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return storage.FormatTime(t), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		if endOfDay {
			t = t.Add(24*time.Hour - time.Millisecond)
		}
		return storage.FormatTime(t), nil
	}
	return "", core.Invalid(field, "%s must be an RFC 3339 time or a date like 2026-01-31", field)
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// writeError writes e as {"error": ..., "code": ...} plus its extra fields.
func writeError(w http.ResponseWriter, e *core.Error) {
	out := map[string]any{}
	for k, v := range e.Extra {
		out[k] = v
	}
	out["error"], out["code"] = e.Message, e.Code
	writeJSON(w, StatusOf(e.Code), out)
}

// writeMutation writes a mutation result, with its error's status and code
// when it failed.
func writeMutation(w http.ResponseWriter, res *core.MutationResult, err error) {
	if err == nil {
		writeJSON(w, http.StatusOK, res)
		return
	}
	e := core.AsError(err)
	if res == nil {
		writeError(w, e)
		return
	}
	out := map[string]any{"id": res.ID, "status": res.Status, "error": e.Message, "code": e.Code}
	if res.CurrentVersion > 0 {
		out["currentVersion"] = res.CurrentVersion
	}
	if res.DuplicateMemoryID != "" {
		out["duplicateMemoryId"] = res.DuplicateMemoryID
	}
	for k, v := range e.Extra {
		if _, taken := out[k]; !taken {
			out[k] = v
		}
	}
	writeJSON(w, StatusOf(e.Code), out)
}
