package core

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// synonyms expands words a memory uses into words a later question may use
// instead. Kept small and about the things agents remember; an LLM provider
// writes better hints when one is configured.
var synonyms = map[string][]string{
	"deploy": {"ship", "release", "rollout"}, "deployed": {"shipped", "released"},
	"release": {"ship", "deploy", "version"}, "ship": {"deploy", "release"},
	"bug": {"issue", "defect", "error", "problem"}, "error": {"failure", "bug", "problem"},
	"crash": {"failure", "error"}, "fail": {"error", "break"}, "failed": {"error", "broke"},
	"prefer": {"like", "favorite", "choose"}, "prefers": {"likes", "favorite", "chooses"},
	"like": {"prefer", "enjoy", "favorite"}, "likes": {"prefers", "enjoys", "favorite"},
	"love": {"like", "enjoy", "favorite"}, "loves": {"likes", "enjoys", "favorite"},
	"enjoy": {"like", "love", "hobby"}, "enjoys": {"likes", "loves", "hobby"},
	"decided": {"decision", "chose", "choice"}, "chose": {"decided", "choice", "picked"},
	"meeting": {"call", "sync", "meet"}, "meet": {"meeting", "see"},
	"database": {"db", "datastore", "storage"}, "db": {"database"},
	"config": {"configuration", "settings"}, "configuration": {"config", "settings"},
	"settings": {"config", "configuration", "options"}, "test": {"testing", "spec", "check"},
	"tests": {"testing", "specs", "checks"}, "build": {"compile", "ci"},
	"job": {"work", "career", "employment"}, "work": {"job", "career"}, "works": {"job", "employed"},
	"kids": {"children", "family"}, "children": {"kids", "family"}, "son": {"child", "kid", "family"},
	"daughter": {"child", "kid", "family"}, "wife": {"spouse", "partner", "family"}, "husband": {"spouse", "partner", "family"},
	"dog": {"pet", "animal"}, "cat": {"pet", "animal"}, "pets": {"animals", "dog", "cat"},
	"trip": {"travel", "vacation", "journey"}, "travel": {"trip", "vacation"}, "vacation": {"trip", "holiday", "travel"},
	"paint": {"painting", "art"}, "painting": {"art", "paint"}, "music": {"song", "band", "instrument"},
	"book": {"read", "novel", "reading"}, "read": {"book", "reading"}, "moved": {"relocated", "move", "lives"},
	"live": {"home", "reside"}, "lives": {"home", "resides"}, "friend": {"friends", "buddy"},
	"school": {"study", "class", "education"}, "study": {"school", "learn", "education"},
	"run": {"running", "jog", "exercise"}, "running": {"run", "jog", "exercise"}, "gym": {"exercise", "workout", "fitness"},
	"port": {"address", "listen"}, "token": {"key", "credential", "secret"}, "key": {"token", "credential"},
}

// questionStems are question forms by memory type.
var questionStems = map[string]string{
	"preference": "what does the user prefer or like",
	"decision":   "what was decided and why",
	"rule":       "what rule or constraint applies",
	"issue":      "what problem or bug happened",
	"learning":   "what was learned or discovered",
}

// HeuristicHints writes up to max hypothetical questions content answers,
// without a model: a question form for the memory's type, and the content's
// key words with the words a question might use instead.
func HeuristicHints(content, typ string, max int) []string {
	var hints []string
	terms := text.QueryTerms(content)
	if stem, ok := questionStems[typ]; ok {
		key := strings.Join(terms[:min(len(terms), 4)], " ")
		hints = append(hints, stem+": "+key)
	}
	var expanded []string
	for _, t := range terms {
		expanded = append(expanded, synonyms[t]...)
	}
	if len(expanded) > 0 {
		hints = append(hints, strings.Join(expanded, " "))
	}
	if len(hints) > max {
		hints = hints[:max]
	}
	return hints
}

// writeHints replaces a memory's heuristic hints, inside the caller's write
// transaction (pure computation, no I/O beyond SQLite).
func (s *Service) writeHints(ctx context.Context, tx storage.Tx, m *storage.Memory) error {
	if !s.cfg.Hints.Enabled {
		return nil
	}
	return storage.ReplaceHeuristicHints(ctx, tx, m.ID, HeuristicHints(m.Content, m.Type, s.cfg.Hints.Max), s.Timestamp())
}

// hintMatches returns, per memory, the best (most negative) bm25 of its
// hints against the match expression, for live memories passing f.
func (s *Service) hintMatches(ctx context.Context, match string, f storage.MemoryFilter, limit int) (map[string]float64, error) {
	if s.db.Postgres() {
		return nil, nil // the hints' FTS5 index is SQLite's
	}
	// Best hint per memory, taken in Go: SQLite refuses bm25() under an
	// aggregate.
	hints, err := storage.MatchHints(ctx, s.db.Reader(), match, f, limit*max(1, s.cfg.Hints.Max))
	if err != nil {
		return nil, fmt.Errorf("hint search: %w", err)
	}
	out := map[string]float64{}
	for _, h := range hints {
		id, bm := h.MemoryID, h.BM25
		if prev, ok := out[id]; !ok || bm < prev {
			if ok || len(out) < limit {
				out[id] = bm
			}
		}
	}
	return out, nil
}
