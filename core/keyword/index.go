package keyword

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
	"sync"
)

// BM25 parameters: FTS5's bm25() defaults.
const (
	k1 = 1.2
	b  = 0.75
)

// blockSize is how many postings share one block: a block is skipped
// whole when its best possible score cannot enter the top k.
const blockSize = 128

// Doc is one document to index: the memories row id, its content and its
// context (the content of the memory stated before it in its session).
type Doc struct {
	ID uint32
	Text
}

// Text is what a document holds: two fields, ranked as FTS5's
// bm25(memories_fts, 1.0, 0.5) ranks its two columns. A word of Context
// counts half a word of Content, so term frequencies are kept in half
// units (2 per occurrence in Content, 1 in Context); the document's length
// is the tokens of both, as FTS5 counts it.
type Text struct {
	Content, Context string
}

// hash identifies a document's indexed text.
func (t Text) hash() uint64 {
	h := contentHash(t.Content)
	if t.Context != "" {
		h = h*31 + contentHash(t.Context)
	}
	return h
}

// termUnits tokenizes t into tf (half units per term) and returns the
// number of tokens.
func (t Text) termUnits(tf map[string]int) int {
	n := 0
	Tokenize(t.Content, func(tok []byte) {
		tf[string(tok)] += 2
		n++
	})
	Tokenize(t.Context, func(tok []byte) {
		tf[string(tok)]++
		n++
	})
	return n
}

// block describes one compressed run of postings of a term.
type block struct {
	last   uint32 // the last document id in the block
	off    uint32 // offset of the block's bytes in Index.data
	maxTF  uint16 // the largest term frequency in the block
	minLen uint16 // the shortest document in the block (saturated)
}

// termInfo locates a term's blocks in the base segment.
type termInfo struct {
	first, n uint32 // blocks[first : first+n]
	df       uint32
	maxTF    uint16
	minLen   uint16
}

// posting is one document of a term in the delta segment.
type posting struct {
	doc uint32
	tf  uint16
}

// Index is the inverted index: an immutable base segment of
// block-compressed postings (delta-coded ids and frequencies as varints),
// a small delta segment of documents added or changed since the base was
// built, and the base documents those replaced (tombstones). Document
// frequencies count the base's documents with tombstones, so after many
// changes they drift from FTS5's until the next rebuild (NeedsRebuild).
// It is safe for concurrent use.
type Index struct {
	mu sync.RWMutex

	terms  map[string]termInfo
	blocks []block
	data   []byte

	delta     map[string][]posting // sorted by doc
	deltaDocs int

	docLen   []uint32 // by id: length+1; 0 when the id is not indexed
	hash     []uint64 // by id: hash of the indexed content
	flags    []uint8  // by id: flagBase, flagDead
	tombs    int
	docs     int   // documents indexed (FTS5's row count)
	tokens   int64 // tokens in all of them (FTS5's total size)
	baseDocs int
}

var seed = maphash.MakeSeed()

func contentHash(s string) uint64 { return maphash.String(seed, s) }

// saturate16 caps x at the largest uint16.
func saturate16(x int) uint16 { return uint16(min(x, math.MaxUint16)) }

// Build indexes docs (ids in any order, each once).
func Build(docs func(yield func(Doc) bool)) *Index {
	type acc struct {
		docs []uint32
		tfs  []uint16
	}
	ix := &Index{terms: map[string]termInfo{}, delta: map[string][]posting{}}
	lists := map[string]*acc{}
	tf := map[string]int{}
	for d := range docs {
		clear(tf)
		n := d.termUnits(tf)
		ix.setDoc(d.ID, n, d.hash())
		ix.flags[d.ID] = flagBase
		for t, c := range tf {
			a := lists[t]
			if a == nil {
				a = &acc{}
				lists[t] = a
			}
			a.docs = append(a.docs, d.ID)
			a.tfs = append(a.tfs, saturate16(c))
		}
	}
	ix.baseDocs = ix.docs
	var buf [binary.MaxVarintLen32]byte
	for t, a := range lists {
		if !slices.IsSorted(a.docs) {
			idx := make([]int, len(a.docs))
			for i := range idx {
				idx[i] = i
			}
			slices.SortFunc(idx, func(x, y int) int { return int(a.docs[x]) - int(a.docs[y]) })
			ds, ts := make([]uint32, len(idx)), make([]uint16, len(idx))
			for i, j := range idx {
				ds[i], ts[i] = a.docs[j], a.tfs[j]
			}
			a.docs, a.tfs = ds, ts
		}
		info := termInfo{first: uint32(len(ix.blocks)), df: uint32(len(a.docs)), minLen: math.MaxUint16}
		for start := 0; start < len(a.docs); start += blockSize {
			end := min(start+blockSize, len(a.docs))
			bl := block{last: a.docs[end-1], off: uint32(len(ix.data)), minLen: math.MaxUint16}
			prev := uint32(0)
			for i := start; i < end; i++ {
				n := binary.PutUvarint(buf[:], uint64(a.docs[i]-prev))
				ix.data = append(ix.data, buf[:n]...)
				n = binary.PutUvarint(buf[:], uint64(a.tfs[i]))
				ix.data = append(ix.data, buf[:n]...)
				prev = a.docs[i]
				bl.maxTF = max(bl.maxTF, a.tfs[i])
				bl.minLen = min(bl.minLen, saturate16(int(ix.docLen[a.docs[i]]-1)))
			}
			ix.blocks = append(ix.blocks, bl)
			info.n++
			info.maxTF = max(info.maxTF, bl.maxTF)
			info.minLen = min(info.minLen, bl.minLen)
		}
		ix.terms[t] = info
	}
	ix.data = slices.Clip(ix.data)
	ix.blocks = slices.Clip(ix.blocks)
	return ix
}

// setDoc records a document's length and content hash.
func (ix *Index) setDoc(id uint32, n int, h uint64) {
	if int(id) >= len(ix.docLen) {
		grow := max(int(id)+1, 2*len(ix.docLen))
		ix.docLen = append(ix.docLen, make([]uint32, grow-len(ix.docLen))...)
		ix.hash = append(ix.hash, make([]uint64, grow-len(ix.hash))...)
		ix.flags = append(ix.flags, make([]uint8, grow-len(ix.flags))...)
	}
	ix.docLen[id] = uint32(n) + 1
	ix.hash[id] = h
	ix.docs++
	ix.tokens += int64(n)
}

// Has reports whether id is indexed with exactly t.
func (ix *Index) Has(id uint32, t Text) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return int(id) < len(ix.docLen) && ix.docLen[id] > 0 && ix.hash[id] == t.hash()
}

// Update brings documents in step with the database: each of ids is
// indexed with its text in docs, or removed when docs lacks it (the row
// is gone). Unchanged documents cost a hash.
func (ix *Index) Update(ids []uint32, docs map[uint32]Text) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, id := range ids {
		t, ok := docs[id]
		if ok && int(id) < len(ix.docLen) && ix.docLen[id] > 0 && ix.hash[id] == t.hash() {
			continue
		}
		ix.remove(id)
		if ok {
			ix.add(id, t)
		}
	}
}

// remove drops id's postings: a tombstone in the base, removal from the
// delta.
func (ix *Index) remove(id uint32) {
	if int(id) >= len(ix.docLen) || ix.docLen[id] == 0 {
		return
	}
	ix.docs--
	ix.tokens -= int64(ix.docLen[id] - 1)
	ix.docLen[id] = 0
	if ix.flags[id]&(flagBase|flagDead) == flagBase {
		ix.flags[id] |= flagDead
		ix.tombs++
		return
	}
	for t, ps := range ix.delta {
		i, found := slices.BinarySearchFunc(ps, id, func(p posting, id uint32) int { return int(p.doc) - int(id) })
		if found {
			ps = slices.Delete(ps, i, i+1)
			if len(ps) == 0 {
				delete(ix.delta, t)
			} else {
				ix.delta[t] = ps
			}
		}
	}
	ix.deltaDocs--
}

// Flags of an id: flagBase when the base segment holds its postings,
// flagDead when those are stale (the document changed or is gone).
const (
	flagBase = 1 << iota
	flagDead
)

// add indexes id in the delta segment.
func (ix *Index) add(id uint32, t Text) {
	tf := map[string]int{}
	n := t.termUnits(tf)
	ix.setDoc(id, n, t.hash())
	for t, c := range tf {
		ps := ix.delta[t]
		i, _ := slices.BinarySearchFunc(ps, id, func(p posting, id uint32) int { return int(p.doc) - int(id) })
		ix.delta[t] = slices.Insert(ps, i, posting{doc: id, tf: saturate16(c)})
	}
	ix.deltaDocs++
}

// NeedsRebuild reports whether the delta and the tombstones have grown
// enough (an eighth of the store, or 4,096 documents) that a rebuild
// pays: they make queries slower and document frequencies less exact.
func (ix *Index) NeedsRebuild() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	churn := ix.deltaDocs + ix.tombs
	return churn > 4096 || (churn > 64 && churn*8 > ix.docs)
}

// Stats describes the index's size.
type Stats struct {
	Docs, Terms, DeltaDocs, Tombstones int
	Bytes                              int64 // approximate heap bytes
}

// Stats returns the index's size.
func (ix *Index) Stats() Stats {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	bytes := int64(len(ix.data)) + int64(len(ix.blocks))*16 + int64(len(ix.docLen))*(4+8+1+1)
	for t := range ix.terms {
		bytes += int64(len(t)) + 16 + 24 + 8 // key, header, termInfo, map overhead (roughly)
	}
	for t, ps := range ix.delta {
		bytes += int64(len(t)) + 40 + int64(len(ps))*8
	}
	return Stats{Docs: ix.docs, Terms: len(ix.terms), DeltaDocs: ix.deltaDocs, Tombstones: ix.tombs, Bytes: bytes}
}
