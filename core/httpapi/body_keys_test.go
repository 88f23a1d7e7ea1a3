package httpapi_test

import (
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// Duplicate and case-variant keys are refused on every route and in every
// mode, naming the key: one body, one reading.
func TestBodyKeysUnambiguous(t *testing.T) {
	e := apitest.NewStoreEnv(t)
	for raw, field := range map[string]string{
		`{"content":"a","content":"b"}`:                     "content",
		`{"content":"a","project":"x","Project":"y"}`:       "Project",
		`{"Content":"a"}`:                                   "Content",
		`{"content":"a","tags":["x"],"TAGS":["y"]}`:         "TAGS",
		`{"content":"a","metadata":{"k":1,"k":2}}`:          "k",
		`{"content":"a","session_id":"s","SESSION_ID":"t"}`: "SESSION_ID",
		// encoding/json folds the Kelvin sign to k and the long s to s.
		`{"content":"a","session_key":"s","session_\u212aey":"t"}`: "session_\u212aey",
		`{"content":"a","\u017fource_id":"t"}`:                     "\u017fource_id",
	} {
		e.Post(t, "/api/memory/remember", apitest.RawBody(raw)).WantInvalid(t, field, field)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories`); n != 0 {
		t.Fatalf("%d memories stored from ambiguous bodies", n)
	}
	// Keys the API does not read keep their case in nested user data, and
	// case-distinct keys of nested objects are not duplicates.
	e.Post(t, "/api/memory/remember", apitest.RawBody(`{"content":"fine","extra":{"ID":1,"id":2}}`)).Want(t, 200)
}
