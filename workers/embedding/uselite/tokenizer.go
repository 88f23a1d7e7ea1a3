package uselite

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

const (
	// MaxTokens is the number of leading tokens the model looks at; the graph
	// drops every position >= 128 (its ClipToMaxLength step).
	MaxTokens = 128

	// maxInputBytes caps how much of a text is normalized and tokenized.
	// 8 KiB holds far more than 128 tokens of any ordinary text (a token
	// covers 1 to 16 characters), so the cap only saves work: cutting at an
	// ASCII space, which no vocabulary piece spans, leaves the first tokens
	// exactly as the JavaScript tokenizer would produce them on the full text.
	maxInputBytes = 8 << 10

	// reservedSymbols is the number of leading vocabulary entries (<unk>,
	// <s>, </s>, extra ids) that the tokenizer never produces by matching.
	reservedSymbols = 6

	// unknownID is the id of the "<unk>" piece; runs of unknown characters
	// become one unknownID token.
	unknownID = 0

	separator = '\u2581' // "▁", SentencePiece's word-boundary marker
)

// tokenizer is a port of the SentencePiece-style tokenizer of
// @energetic-ai/embeddings 0.2.0 (itself from tfjs-models'
// universal-sentence-encoder): a trie of the vocabulary pieces and a Viterbi
// pass that keeps, for each end position, the best-scoring piece, with the
// JavaScript code's quirks reproduced because they decide the ids the model
// was run with:
//
//   - positions are Unicode code points (JS `for...of`), but the backtracking
//     step is the piece's JS string length in UTF-16 units (identical for this
//     vocabulary, which has no astral characters, but kept for fidelity);
//   - a JSON null score counts as 0 (null + x === x in JS);
//   - a best score of exactly 0 counts as "not set yet" and is overwritten;
//   - among candidates ending at the same position, later start positions
//     win ties (>=);
//   - a character with no matching piece is a single "unknown" piece of
//     score 0, and consecutive unknown tokens are merged into one.
type tokenizer struct {
	scores   []float64 // per vocabulary id
	backstep []int     // per vocabulary id: UTF-16 length of the piece
	maxLen   int       // longest piece, in code points

	// Trie: node 0 is the root; children are found through one map keyed by
	// parent node and rune. A node's id is the vocabulary id of the piece
	// ending there plus one, or 0 if no piece ends there.
	children map[trieKey]int32
	pieceID  []int32
}

type trieKey struct {
	node int32
	r    rune
}

// newTokenizer parses vocab.json: an array of [piece, score] pairs where
// the score may be null.
func newTokenizer(vocabJSON []byte) (*tokenizer, error) {
	var entries [][2]json.RawMessage
	if err := json.Unmarshal(vocabJSON, &entries); err != nil {
		return nil, fmt.Errorf("vocab.json: %w", err)
	}
	if len(entries) <= reservedSymbols {
		return nil, errors.New("vocab.json: too few entries")
	}
	t := &tokenizer{
		scores:   make([]float64, len(entries)),
		backstep: make([]int, len(entries)),
		children: make(map[trieKey]int32, 3*len(entries)),
		pieceID:  []int32{0},
	}
	pieces := make([]string, len(entries))
	for i, e := range entries {
		if err := json.Unmarshal(e[0], &pieces[i]); err != nil {
			return nil, fmt.Errorf("vocab.json entry %d: %w", i, err)
		}
		var score *float64
		if err := json.Unmarshal(e[1], &score); err != nil {
			return nil, fmt.Errorf("vocab.json entry %d: %w", i, err)
		}
		if score != nil {
			t.scores[i] = *score
		}
		t.backstep[i] = len(utf16.Encode([]rune(pieces[i])))
		if t.backstep[i] == 0 {
			return nil, fmt.Errorf("vocab.json entry %d: empty piece", i)
		}
	}
	for i := reservedSymbols; i < len(pieces); i++ {
		node := int32(0)
		n := 0
		for _, r := range pieces[i] {
			k := trieKey{node, r}
			child, ok := t.children[k]
			if !ok {
				child = int32(len(t.pieceID))
				t.pieceID = append(t.pieceID, 0)
				t.children[k] = child
			}
			node = child
			n++
		}
		// A later duplicate piece replaces the earlier one, as in the JS trie.
		t.pieceID[node] = int32(i) + 1
		t.maxLen = max(t.maxLen, n)
	}
	return t, nil
}

// prepare caps the input, applies NFKC and marks word boundaries the way
// the JS processInput does: "▁" + text with every " " replaced by "▁".
func prepare(text string) []rune {
	if len(text) > maxInputBytes {
		cut := maxInputBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		if i := strings.LastIndexByte(text[:cut], ' '); i >= maxInputBytes/2 {
			cut = i
		}
		text = text[:cut]
	}
	text = norm.NFKC.String(text)
	if text == "" {
		return nil
	}
	out := make([]rune, 1, len(text)+1)
	out[0] = separator
	for _, r := range text { // invalid UTF-8 bytes become U+FFFD
		if r == ' ' {
			r = separator
		}
		out = append(out, r)
	}
	return out
}

// encode returns the ids of the first MaxTokens tokens of text.
func (t *tokenizer) encode(text string) []int {
	syms := prepare(text)
	n := len(syms)
	if n == 0 {
		return []int{}
	}
	// match[start*stride+l] is 1 + the id of the piece of length l starting
	// at start, or 0 if none. With no piece at all, the single character is
	// an unknown piece (id 0, score 0).
	stride := t.maxLen + 1
	match := make([]int32, n*stride)
	for i := range n {
		node, found := int32(0), false
		for j := i; j < n && j-i < t.maxLen; j++ {
			child, ok := t.children[trieKey{node, syms[j]}]
			if !ok {
				break
			}
			node = child
			if id := t.pieceID[node]; id != 0 {
				match[i*stride+j-i+1] = id
				found = true
			}
		}
		if !found {
			match[i*stride+1] = unknownID + 1
		}
	}

	best := make([]float64, n+1)
	words := make([]int32, n+1)
	for end := 1; end <= n; end++ {
		for start := max(0, end-t.maxLen); start < end; start++ {
			id := match[start*stride+end-start]
			if id == 0 {
				continue
			}
			id--
			score := t.scores[id] + best[start]
			if best[end] == 0 || score >= best[end] {
				best[end] = score
				words[end] = id
			}
		}
	}

	// Backtrack from the end, merging runs of unknown tokens; the ids come
	// out last-first.
	rev := make([]int, 0, min(n, 4*MaxTokens))
	prevUnknown := false
	for i := n; i > 0; i -= t.backstep[words[i]] {
		id := int(words[i])
		if !(prevUnknown && id == unknownID) {
			rev = append(rev, id)
		}
		prevUnknown = id == unknownID
	}
	k := min(len(rev), MaxTokens)
	ids := make([]int, k)
	for i := range ids {
		ids[i] = rev[len(rev)-1-i]
	}
	return ids
}
