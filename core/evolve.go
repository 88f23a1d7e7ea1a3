package core

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/storage"
)

// Memory that evolves (seeds 002 and 004).
//
// Reinforcement: the same content remembered again in the same project is
// not a new row; the memory it duplicates counts one more statement
// (reinforced_count, last_confirmed_at) and its history says so.
//
// Keyed facts: a memory may carry a key ("timezone", "staging.db.port").
// In one project a key has one live value: remembering a new value
// supersedes the old memory, which is soft-deleted with superseded_by
// pointing at its successor. It leaves recall and injections, stays in
// history and the deleted list, is never purged by retention, and can be
// recovered at any time.

// History events of evolution.
const (
	EventReinforced = "reinforced"
	EventSuperseded = "superseded"
)

// maxKeyChars bounds a memory key.
const maxKeyChars = 128

// NormalizeKey is a memory key as stored: trimmed, lower-cased, runs of
// space as one. "" stays "" (no key).
func NormalizeKey(k string) (string, *Error) {
	if !utf8.ValidString(k) {
		return "", Invalid("key", "key is not valid UTF-8")
	}
	k = strings.Join(strings.Fields(strings.ToLower(k)), " ")
	if utf8.RuneCountInString(k) > maxKeyChars {
		return "", Invalid("key", "key is %d characters; at most %d", utf8.RuneCountInString(k), maxKeyChars)
	}
	for _, r := range k {
		if unicode.IsControl(r) {
			return "", Invalid("key", "key must not hold control characters")
		}
	}
	return k, nil
}

// reinforce counts one more statement of m.
func (s *Service) reinforce(ctx context.Context, tx *storage.Tx, m *storage.Memory, actor Actor) error {
	if err := storage.ReinforceMemory(ctx, tx, m.ID, s.Timestamp()); err != nil {
		return err
	}
	return s.AddHistory(ctx, tx, m.ID, EventReinforced, nil, nil, actor, "stated again", nil)
}

// supersedeKeyed gives memory id the key and retires the other live
// memories of project holding it: each is soft-deleted with superseded_by
// set and a "superseded" history event. It returns their ids.
func (s *Service) supersedeKeyed(ctx context.Context, tx *storage.Tx, id, key, project string, actor Actor) ([]string, error) {
	if err := storage.SetMemoryKey(ctx, tx, id, key); err != nil {
		return nil, err
	}
	old, err := storage.LiveKeyed(ctx, tx, key, project, id)
	if err != nil {
		return nil, err
	}
	var retired []string
	for _, o := range old {
		res, err := s.ForgetTx(ctx, tx, ForgetInput{ID: o, Reason: "superseded by " + id, Force: true}, actor)
		if res == nil {
			return nil, err
		}
		if res.Status != "deleted" {
			continue
		}
		if err := storage.SetSupersededBy(ctx, tx, o, id); err != nil {
			return nil, err
		}
		if err := s.AddHistory(ctx, tx, o, EventSuperseded, nil, nil, actor, "superseded by "+id, map[string]any{"successor": id, "key": key}); err != nil {
			return nil, err
		}
		retired = append(retired, o)
	}
	return retired, nil
}

// Evolution is a memory's key, reinforcement and place in a chain of
// supersession, as Get shows it.
type Evolution struct {
	Key             string   `json:"key,omitempty"`
	Reinforced      int64    `json:"reinforced,omitempty"`
	LastConfirmedAt string   `json:"last_confirmed_at,omitempty"`
	SupersededBy    string   `json:"superseded_by,omitempty"`
	Supersedes      []string `json:"supersedes,omitempty"`
}

// evolutionOf reads a memory's evolution; nil when it has none to show.
func (s *Service) evolutionOf(ctx context.Context, id string) (*Evolution, error) {
	e, err := storage.MemoryEvolution(ctx, s.db.Reader(), id)
	if err != nil {
		return nil, err
	}
	if e.Key == "" && e.Reinforced == 0 && e.SupersededBy == "" && len(e.Supersedes) == 0 {
		return nil, nil
	}
	return &Evolution{Key: e.Key, Reinforced: e.Reinforced, LastConfirmedAt: e.LastConfirmedAt,
		SupersededBy: e.SupersededBy, Supersedes: e.Supersedes}, nil
}

// Base confidence by how a memory came to be (seed 004): stated by a
// person or an agent on purpose, written by the system from a source
// (documents), observed in a session, or inferred from other memories.
const (
	ConfidenceStated   = 1.0
	ConfidenceSystem   = 0.9
	ConfidenceObserved = 0.7
	ConfidenceInferred = 0.5
)

// SourceConfidence is the confidence a memory of sourceType starts with
// when its writer gives none: "inferred", "observed" and "system" (and
// their synonyms) by their names, anything else stated.
func SourceConfidence(sourceType string) float64 {
	switch strings.ToLower(strings.TrimSpace(sourceType)) {
	case "inferred", "inference", "pipeline", "pipeline-v2", "extracted":
		return ConfidenceInferred
	case "observed", "observation", "session", "transcript", "session-end":
		return ConfidenceObserved
	case "system", "document", "documents", "connector":
		return ConfidenceSystem
	}
	return ConfidenceStated
}
