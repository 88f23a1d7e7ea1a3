package keyword

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"math"
	"slices"
)

// Hit is one ranked document.
type Hit struct {
	ID uint32
	// BM25 is FTS5's bm25(): negative, lower is better.
	BM25 float64
}

// Query tokenizes OR-ed query phrases as FTS5 reads a MATCH expression of
// quoted terms: each phrase must be one token. ok is false when one is
// not (FTS5 would search it as a phrase of several tokens); a phrase of no
// token matches nothing and is left out.
func Query(phrases []string) (terms []string, ok bool) {
	for _, p := range phrases {
		var toks []string
		Tokenize(p, func(t []byte) { toks = append(toks, string(t)) })
		switch len(toks) {
		case 0:
		case 1:
			terms = append(terms, toks[0])
		default:
			return nil, false
		}
	}
	return terms, true
}

// cursor walks one term's postings in one segment.
type cursor struct {
	idf, ub float64
	tfMax   uint16
	minLen  uint16

	// base segment
	ix     *Index
	blocks []block
	bi     int // current block; len(blocks) when exhausted
	docs   [blockSize]uint32
	tfs    [blockSize]uint16
	n, pos int

	// delta segment (blocks == nil)
	delta []posting
}

const done = math.MaxUint32

func (c *cursor) doc() uint32 {
	if c.blocks == nil {
		if c.pos < len(c.delta) {
			return c.delta[c.pos].doc
		}
		return done
	}
	if c.pos < c.n {
		return c.docs[c.pos]
	}
	return done
}

func (c *cursor) tf() uint16 {
	if c.blocks == nil {
		return c.delta[c.pos].tf
	}
	return c.tfs[c.pos]
}

// load decodes block bi.
func (c *cursor) load() {
	c.n, c.pos = 0, 0
	if c.bi >= len(c.blocks) {
		return
	}
	data := c.ix.data[c.blocks[c.bi].off:]
	prev := uint32(0)
	for {
		d, n := binary.Uvarint(data)
		data = data[n:]
		t, m := binary.Uvarint(data)
		data = data[m:]
		prev += uint32(d)
		c.docs[c.n], c.tfs[c.n] = prev, uint16(t)
		c.n++
		if prev == c.blocks[c.bi].last {
			break
		}
	}
}

// skipDead moves past base postings whose document changed since.
func (c *cursor) skipDead() {
	if c.blocks == nil {
		return
	}
	for {
		for c.pos < c.n && c.ix.flags[c.docs[c.pos]]&flagDead != 0 {
			c.pos++
		}
		if c.pos < c.n || c.bi >= len(c.blocks) {
			return
		}
		c.bi++
		c.load()
	}
}

func (c *cursor) next() {
	c.pos++
	if c.blocks != nil && c.pos >= c.n && c.bi < len(c.blocks) {
		c.bi++
		c.load()
	}
	c.skipDead()
}

// seek moves to the first posting at or after target, skipping whole
// blocks without decoding them.
func (c *cursor) seek(target uint32) {
	if c.blocks == nil {
		c.pos += sortSearch(len(c.delta)-c.pos, func(i int) bool { return c.delta[c.pos+i].doc >= target })
		return
	}
	if c.doc() >= target {
		return
	}
	if c.bi < len(c.blocks) && c.blocks[c.bi].last < target {
		c.bi += sortSearch(len(c.blocks)-c.bi, func(i int) bool { return c.blocks[c.bi+i].last >= target })
		c.load()
	}
	for c.pos < c.n && c.docs[c.pos] < target {
		c.pos++
	}
	if c.pos >= c.n && c.bi < len(c.blocks) {
		c.bi++
		c.load()
	}
	c.skipDead()
}

func sortSearch(n int, f func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if !f(h) {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// hitHeap is a min-heap of the best hits so far (by score, then the
// larger id first out, so ties keep the smaller id).
type scored struct {
	id    uint32
	score float64
}
type hitHeap []scored

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score < h[j].score
	}
	return h[i].id > h[j].id
}
func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)   { *h = append(*h, x.(scored)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Search returns the k best documents for the OR of terms (tokens, as
// Query returns them; a term given twice counts twice, as FTS5 scores a
// phrase given twice), best first, with FTS5's bm25 scores. It prunes
// with MaxScore: once k documents are held, a document is scored only if
// the terms it may contain can still lift it above the k-th, so frequent
// terms are read only where rarer ones matched. more reports whether
// documents beyond the k returned match.
func (ix *Index) Search(terms []string, k int) (hits []Hit, more bool) {
	if k <= 0 || len(terms) == 0 {
		return nil, false
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.docs == 0 {
		return nil, false
	}
	n := float64(ix.docs)
	avgdl := float64(ix.tokens) / n
	var cs []*cursor
	for _, t := range terms {
		info, inBase := ix.terms[t]
		dps := ix.delta[t]
		df := len(dps)
		if inBase {
			df += int(info.df)
		}
		if df == 0 {
			continue
		}
		// FTS5: idf = log((N - nHit + 0.5) / (nHit + 0.5)), at least 1e-6.
		idf := math.Log((n - float64(df) + 0.5) / (float64(df) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		if inBase {
			c := &cursor{idf: idf, ix: ix, blocks: ix.blocks[info.first : info.first+info.n], tfMax: info.maxTF, minLen: info.minLen}
			c.load()
			c.skipDead()
			cs = append(cs, c)
		}
		if len(dps) > 0 {
			c := &cursor{idf: idf, delta: dps, minLen: math.MaxUint16}
			for _, p := range dps {
				c.tfMax = max(c.tfMax, p.tf)
				c.minLen = min(c.minLen, saturate16(int(ix.docLen[p.doc]-1)))
			}
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return nil, false
	}
	// tf is in half units (Text): a Content word is 2, a Context word 1.
	termScore := func(idf float64, tf float64, dl float64) float64 {
		tf /= 2
		return idf * tf * (k1 + 1) / (tf + k1*(1-b+b*dl/avgdl))
	}
	for _, c := range cs {
		c.ub = termScore(c.idf, float64(c.tfMax), float64(c.minLen))
	}
	// Cursors by upper bound, smallest first; prefix[i] is what cursors
	// 0..i can add at most.
	slices.SortStableFunc(cs, func(a, b *cursor) int { return cmp.Compare(a.ub, b.ub) })
	prefix := make([]float64, len(cs))
	sum := 0.0
	for i, c := range cs {
		sum += c.ub
		prefix[i] = sum
	}
	h := make(hitHeap, 0, k+1)
	theta := -1.0 // the k-th best score once k are held
	ess := 0      // cursors ess.. are essential: a match must hold one
	for {
		d := uint32(done)
		for _, c := range cs[ess:] {
			d = min(d, c.doc())
		}
		if d == done {
			break
		}
		dl := float64(ix.docLen[d] - 1)
		score := 0.0
		for _, c := range cs[ess:] {
			if c.doc() == d {
				score += termScore(c.idf, float64(c.tf()), dl)
				c.next()
			}
		}
		pruned := false
		for i := ess - 1; i >= 0; i-- {
			if score+prefix[i] <= theta {
				pruned = true
				more = true
				break
			}
			c := cs[i]
			c.seek(d)
			if c.doc() == d {
				score += termScore(c.idf, float64(c.tf()), dl)
			}
		}
		if pruned {
			continue
		}
		if len(h) < k {
			heap.Push(&h, scored{d, score})
		} else if score > h[0].score || (score == h[0].score && d < h[0].id) {
			h[0] = scored{d, score}
			heap.Fix(&h, 0)
			more = true
		} else {
			more = true
			continue
		}
		if len(h) == k {
			theta = h[0].score
			for ess < len(cs) && prefix[ess] <= theta {
				ess++
			}
			if ess == len(cs) {
				// No document outside the heap can beat it; some may match.
				for _, c := range cs {
					if c.doc() != done {
						more = true
					}
				}
				break
			}
		}
	}
	hits = make([]Hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		s := heap.Pop(&h).(scored)
		hits[i] = Hit{ID: s.id, BM25: -s.score}
	}
	return hits, more
}

// IDF returns FTS5's inverse document frequency of each term (a token, as
// Query returns them): log((N − df + 0.5) / (df + 0.5)), at least 1e-6,
// for df the documents holding it; a term no document holds has the
// largest, log((N + 0.5) / 0.5). nil when the index is empty.
func (ix *Index) IDF(terms []string) []float64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.docs == 0 {
		return nil
	}
	n := float64(ix.docs)
	out := make([]float64, len(terms))
	for i, t := range terms {
		df := len(ix.delta[t])
		if info, ok := ix.terms[t]; ok {
			df += int(info.df)
		}
		out[i] = max(1e-6, math.Log((n-float64(df)+0.5)/(float64(df)+0.5)))
	}
	return out
}

// DocFreq returns how many documents hold each term (a token, as Query
// returns them): what FTS5's term counts answer, for a store without
// FTS5 (PostgreSQL).
func (ix *Index) DocFreq(terms []string) []int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]int, len(terms))
	for i, t := range terms {
		out[i] = len(ix.delta[t])
		if info, ok := ix.terms[t]; ok {
			out[i] += int(info.df)
		}
	}
	return out
}
