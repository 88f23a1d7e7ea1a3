package core

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/cairnmem/cairn/storage"
)

// Limits of the FTS query sanitizer.
const (
	maxQueryBytes = 8 << 10 // only the first 8 KiB of a query is read
	maxQueryTerms = 32      // at most this many distinct terms reach FTS5
	maxTermRunes  = 64      // longer "words" are cut (no real word is longer)
	minTermRunes  = 1
)

// stopwords are dropped from natural-language queries when anything else
// remains, so "what does the user prefer for builds" searches for
// "user prefer builds".
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about above after again against all am an and any are aren't as at
		be because been before being below between both but by can cannot could couldn't did didn't do does
		doesn't doing don't down during each few for from further had hadn't has hasn't have haven't having he
		her here hers herself him himself his how i if in into is isn't it it's its itself just let let's me
		more most mustn't my myself no nor not of off on once only or other ought our ours ourselves out over
		own same shan't she should shouldn't so some such than that that's the their theirs them themselves
		then there there's these they this those through to too under until up very was wasn't we were
		weren't what what's when when's where where's which while who who's whom why why's will with won't
		would wouldn't you your yours yourself yourselves s t d ll m re ve y`) {
		stopwords[w] = true
	}
}

// QueryTerms splits free text into the distinct lower-cased terms FTS5 would
// see (runs of letters, digits and marks, as the unicode61 tokenizer reads
// them), dropping stopwords unless nothing else is left.
func QueryTerms(q string) []string {
	if len(q) > maxQueryBytes {
		q = q[:maxQueryBytes]
	}
	q = strings.ToValidUTF8(q, " ")
	var all, content []string
	seen := map[string]bool{}
	var cur []rune
	flush := func() {
		if len(cur) >= minTermRunes {
			if len(cur) > maxTermRunes {
				cur = cur[:maxTermRunes]
			}
			t := strings.ToLower(string(cur))
			if !seen[t] && len(all) < 4*maxQueryTerms {
				seen[t] = true
				all = append(all, t)
				if !stopwords[t] {
					content = append(content, t)
				}
			}
		}
		cur = cur[:0]
	}
	for _, r := range q {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.Is(unicode.Co, r) {
			cur = append(cur, r)
			continue
		}
		flush()
	}
	flush()
	terms := content
	if len(terms) == 0 {
		terms = all
	}
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	return terms
}

// SanitizeFTSQuery turns any user text into an FTS5 MATCH expression that
// cannot be a syntax error: each term is a quoted string (terms hold only
// letters, digits and marks, so nothing needs escaping) and terms are joined
// with OR, so a memory matching some of the words still ranks. It returns ""
// when the text has no searchable term.
func SanitizeFTSQuery(q string) string {
	terms := QueryTerms(q)
	if len(terms) == 0 {
		return ""
	}
	terms = expandVerbForms(terms)
	for i, t := range terms {
		terms[i] = `"` + t + `"`
	}
	return strings.Join(terms, " OR ")
}

// KeywordHit is one full-text match.
type KeywordHit struct {
	Memory *Memory
	// BM25 is FTS5's raw score: negative, lower is better.
	BM25 float64
	// Score maps |BM25| into [0,1) with |s|/(1+|s|), so a better match
	// scores higher (seed 000's 1/(1+|s|) runs the other way).
	Score float64
}

// KeywordSearch runs a sanitized full-text query over live memories that
// match f, best first.
func (s *Service) KeywordSearch(ctx context.Context, query string, f storage.MemoryFilter, limit int) ([]KeywordHit, error) {
	match := SanitizeFTSQuery(query)
	if match == "" || limit <= 0 {
		return []KeywordHit{}, nil
	}
	return s.keywordMatch(ctx, match, f, limit)
}

func (s *Service) keywordMatch(ctx context.Context, match string, f storage.MemoryFilter, limit int) ([]KeywordHit, error) {
	where, args := f.Where()
	// Rank inside FTS5 first and join only the best rows: joining every
	// matching row before sorting cost several times more at 100k
	// memories. The inner limit leaves room for rows the filter drops;
	// when it drops too many (or there are few matches), rank over the
	// join instead, which is exact.
	fast := `SELECT ` + storage.MemoryColumns + `, f.s FROM (
		SELECT rowid, bm25(memories_fts) AS s FROM memories_fts WHERE memories_fts MATCH ? ORDER BY s LIMIT ?
	) f JOIN memories m ON m.rid = f.rowid WHERE ` + where + ` ORDER BY f.s LIMIT ?`
	// A filter (a project, a type) keeps a share of the matches: widen the
	// inner ranking once before falling back to the exact join.
	for _, inner := range []int{4*limit + 64, 32*limit + 512} {
		out, err := s.scanKeyword(ctx, fast, append(append([]any{match, inner}, args...), limit)...)
		if err != nil || len(out) >= limit {
			return out, err
		}
	}
	full := `SELECT ` + storage.MemoryColumns + `, bm25(memories_fts) AS s
		FROM memories_fts JOIN memories m ON m.rid = memories_fts.rowid
		WHERE memories_fts MATCH ? AND ` + where + `
		ORDER BY s LIMIT ?`
	return s.scanKeyword(ctx, full, append(append([]any{match}, args...), limit)...)
}

func (s *Service) scanKeyword(ctx context.Context, query string, args ...any) ([]KeywordHit, error) {
	rows, err := s.db.Reader().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	defer rows.Close()
	out := []KeywordHit{}
	for rows.Next() {
		var bm float64
		m, err := storage.ScanMemory(bm25Scanner{rows, &bm})
		if err != nil {
			return nil, err
		}
		a := math.Abs(bm)
		out = append(out, KeywordHit{Memory: viewOf(m), BM25: bm, Score: a / (1 + a)})
	}
	return out, rows.Err()
}

// bm25Scanner appends the bm25 column to a ScanMemory scan.
type bm25Scanner struct {
	rows interface{ Scan(...any) error }
	bm   *float64
}

func (b bm25Scanner) Scan(dest ...any) error { return b.rows.Scan(append(dest, b.bm)...) }
