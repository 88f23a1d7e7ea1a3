package keyword_test

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/keyword"
	"github.com/cairnmem/cairn/storage"
)

// porterWords exercise every step of the Porter stemmer, its y and m
// rules, and the unicode61 folding around it.
var porterWords = `caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated
troubled sized hopping tanned falling hissing fizzed failing filing happy sky relational conditional
rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization
predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti
triplicate formative formalize electriciti electrical hopeful goodness revival allowance inference airliner
gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologou communism
activate angulariti homologous effective bowdlerize probate rate cease controll roll generalizations
oscillators ies sses yes says played playing enjoyed crying flying eyes agree disagree feeds needs
logically biology apology abilities possibly syzygy rhythm queueing yyy aaa sss ed ing eed bed fed
running jumped jumps national nationalism Crème brûlée naïve façade ÜBER Straße résumé Ångström
日本語のテキスト 中文 emoji💫mixed ξανδικός µBlock x86_64 v1.2.3 don't it's I'm O'Reilly e-mail foo/bar_baz
ÀÉÎÕÜ ǅungla ﬁne ΑΒΓ ελληνικά кириллица 1234567890 0x1F 3.14159 ` +
	strings.Repeat("a", 70) + ` ` + strings.Repeat("bcdfg", 14) + `ing`

func openStore(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "k.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// insert stores each line as a memories row; it returns the rids.
func insert(t *testing.T, db *storage.DB, lines []string) []int64 {
	return insertWithContext(t, db, lines, nil)
}

// insertWithContext stores each line as a memories row whose context is
// the row of line context(i) (-1: none); it returns the rids.
func insertWithContext(t *testing.T, db *storage.DB, lines []string, context_ func(i int) int) []int64 {
	t.Helper()
	var rids []int64
	err := db.WriteTx(context.Background(), func(tx storage.Tx) error {
		for i, l := range lines {
			var rid int64
			var ctxRID any
			if context_ != nil {
				if j := context_(i); j >= 0 {
					ctxRID = rids[j]
				}
			}
			err := tx.QueryRowContext(context.Background(), `INSERT INTO memories (id, type, content, content_hash,
				created_at, updated_at, updated_by, tags, context_rid) VALUES (?, 'fact', ?, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 't', '[]', ?)
				RETURNING rid`, fmt.Sprintf("m%d-%d", len(lines), i), l, fmt.Sprintf("h%d-%d", len(lines), i), ctxRID).Scan(&rid)
			if err != nil {
				return err
			}
			rids = append(rids, rid)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rids
}

// ftsTokens returns the terms FTS5 indexed for each rid, in order.
func ftsTokens(t *testing.T, db *storage.DB) map[int64][]string {
	t.Helper()
	out := map[int64][]string{}
	err := db.WriteTx(context.Background(), func(tx storage.Tx) error {
		ctx := context.Background()
		if _, err := tx.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, memories_fts, instance)`); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT doc, term FROM temp.v ORDER BY doc, offset`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var doc int64
			var term string
			if err := rows.Scan(&doc, &term); err != nil {
				return err
			}
			out[doc] = append(out[doc], term)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func goTokens(s string) []string {
	var out []string
	keyword.Tokenize(s, func(t []byte) { out = append(out, string(t)) })
	return out
}

// TestTokenizeMatchesFTS5 checks that the index sees the tokens memories_fts
// sees: the same unicode61 folding and the same Porter stems. With
// CAIRN_KEYWORD_CORPUS naming a text file (one document per line), it also
// compares every line of it and reports the share that differ.
func TestTokenizeMatchesFTS5(t *testing.T) {
	db := openStore(t)
	lines := strings.Fields(porterWords)
	lines = append(lines, porterWords)
	rids := insert(t, db, lines)
	fts := ftsTokens(t, db)
	for i, rid := range rids {
		if got, want := goTokens(lines[i]), fts[rid]; !slices.Equal(got, want) {
			t.Errorf("%q: tokens %q, FTS5 has %q", lines[i], got, want)
		}
	}
	path := os.Getenv("CAIRN_KEYWORD_CORPUS")
	if path == "" {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var corpus []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() && len(corpus) < 20000 {
		corpus = append(corpus, sc.Text())
	}
	db2 := openStore(t)
	rids = insert(t, db2, corpus)
	fts = ftsTokens(t, db2)
	bad := 0
	for i, rid := range rids {
		if got, want := goTokens(corpus[i]), fts[rid]; !slices.Equal(got, want) {
			if bad < 10 {
				t.Logf("differs: %q\n  go  %q\n  fts %q", corpus[i], got, want)
			}
			bad++
		}
	}
	t.Logf("%d of %d lines tokenize differently", bad, len(corpus))
	// SQLite's character tables are of an older Unicode than Go's: a
	// line in a thousand may hold a symbol they class differently.
	if bad*1000 > len(corpus) {
		t.Fail()
	}
}

// corpus makes n documents over a Zipf vocabulary: a few words are
// everywhere, most are rare, as in real notes.
func corpus(r *rand.Rand, n int) ([]string, []string) {
	vocab := strings.Fields(porterWords)
	for len(vocab) < 3000 {
		vocab = append(vocab, fmt.Sprintf("w%dq", len(vocab)))
	}
	z := rand.NewZipf(r, 1.1, 4, uint64(len(vocab)-1))
	docs := make([]string, n)
	for i := range docs {
		var sb strings.Builder
		for w := 0; w < 3+r.IntN(40); w++ {
			sb.WriteString(vocab[z.Uint64()])
			sb.WriteByte(' ')
		}
		docs[i] = sb.String()
	}
	return docs, vocab
}

type ftsHit struct {
	rid  int64
	bm25 float64
}

func ftsSearch(t *testing.T, db *storage.DB, phrases []string, k int) []ftsHit {
	t.Helper()
	q := make([]string, len(phrases))
	for i, p := range phrases {
		q[i] = `"` + p + `"`
	}
	rows, err := db.Reader().QueryContext(context.Background(), `SELECT rowid, bm25(memories_fts, 1.0, 0.5) AS s FROM memories_fts
		WHERE memories_fts MATCH ? ORDER BY s, rowid LIMIT ?`, strings.Join(q, " OR "), k)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []ftsHit
	for rows.Next() {
		var h ftsHit
		if err := rows.Scan(&h.rid, &h.bm25); err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}

func build(t *testing.T, db *storage.DB) *keyword.Index {
	t.Helper()
	var err error
	ix := keyword.Build(func(yield func(keyword.Doc) bool) {
		err = storage.EachMemoryText(context.Background(), db.Reader(), func(rid int64, c storage.IndexedText) error {
			yield(keyword.Doc{ID: uint32(rid), Text: keyword.Text{Content: c.Content, Context: c.Context}})
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// sameRanking compares the index's top k with FTS5's: the same scores in
// the same order, and the same documents up to ties.
func sameRanking(t *testing.T, what string, got []keyword.Hit, want []ftsHit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, FTS5 has %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i].BM25-want[i].bm25) > 1e-9*math.Max(1, math.Abs(want[i].bm25)) {
			t.Fatalf("%s: hit %d scores %v, FTS5's scores %v", what, i, got[i].BM25, want[i].bm25)
		}
		if int64(got[i].ID) != want[i].rid {
			// Only a tie may reorder documents.
			tied := false
			for _, w := range want {
				if w.rid == int64(got[i].ID) && math.Abs(w.bm25-got[i].BM25) < 1e-9*math.Max(1, math.Abs(w.bm25)) {
					tied = true
				}
			}
			if !tied {
				t.Fatalf("%s: hit %d is %d (%v), FTS5's is %d (%v)", what, i, got[i].ID, got[i].BM25, want[i].rid, want[i].bm25)
			}
		}
	}
}

// TestSearchRanksAsFTS5 checks that pruned top-k retrieval returns what
// FTS5's exhaustive bm25 ranking returns, for queries mixing rare and
// frequent words and for every k from 1 to all matches. Two documents in
// three have the one before as their context (weighed half).
func TestSearchRanksAsFTS5(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	db := openStore(t)
	docs, vocab := corpus(r, 3000)
	insertWithContext(t, db, docs, func(i int) int {
		if i%3 == 0 {
			return -1
		}
		return i - 1
	})
	ix := build(t, db)
	for q := 0; q < 300; q++ {
		phrases := make([]string, 1+r.IntN(6))
		for i := range phrases {
			for {
				if r.IntN(3) == 0 {
					phrases[i] = vocab[r.IntN(20)] // frequent
				} else {
					phrases[i] = vocab[r.IntN(len(vocab))]
				}
				if len(goTokens(phrases[i])) == 1 {
					break
				}
			}
		}
		terms, ok := keyword.Query(phrases)
		if !ok {
			t.Fatalf("%q: not single tokens", phrases)
		}
		k := []int{1, 3, 10, 40, 200, 5000}[q%6]
		got, more := ix.Search(terms, k)
		// FTS5's top k is the prefix of its whole ranking (ordered by
		// score, then rowid): one search gives both.
		all := ftsSearch(t, db, phrases, 10000)
		sameRanking(t, fmt.Sprintf("%q k=%d", phrases, k), got, all[:min(k, len(all))])
		if more != (len(all) > len(got)) && !more {
			t.Fatalf("%q k=%d: more=%v with %d of %d matches returned", phrases, k, more, len(got), len(all))
		}
	}
}

// TestUpdateFollowsChanges checks that documents added, changed and removed
// after the build are searched as FTS5 searches them: the changed
// document's old words no longer find it, its new ones do, and a removed
// one is gone. Document frequencies of the base may drift until the next
// build, so the check compares which documents match, not their scores.
func TestUpdateFollowsChanges(t *testing.T) {
	db := openStore(t)
	rids := insert(t, db, []string{"alpha beta gamma", "beta delta", "gamma epsilon zeta"})
	ix := build(t, db)
	ids := func(terms ...string) []uint32 {
		got, _ := ix.Search(terms, 10)
		var out []uint32
		for _, h := range got {
			out = append(out, h.ID)
		}
		slices.Sort(out)
		return out
	}
	added := insert(t, db, []string{"omega alpha"})
	ix.Update([]uint32{uint32(added[0])}, map[uint32]keyword.Text{uint32(added[0]): {Content: "omega alpha"}})
	if got := ids("omega"); !slices.Equal(got, []uint32{uint32(added[0])}) {
		t.Fatalf("added document: omega finds %v", got)
	}
	// Document 1 changes, document 2 is deleted.
	ix.Update([]uint32{uint32(rids[0]), uint32(rids[1])}, map[uint32]keyword.Text{uint32(rids[0]): {Content: "theta iota"}})
	if got := ids("alpha"); !slices.Equal(got, []uint32{uint32(added[0])}) {
		t.Fatalf("changed document still found by its old word: alpha finds %v", got)
	}
	if got := ids("theta"); !slices.Equal(got, []uint32{uint32(rids[0])}) {
		t.Fatalf("changed document not found by its new word: theta finds %v", got)
	}
	if got := ids("delta"); len(got) != 0 {
		t.Fatalf("removed document found: delta finds %v", got)
	}
	// The changed document changes again (now in the delta segment).
	ix.Update([]uint32{uint32(rids[0])}, map[uint32]keyword.Text{uint32(rids[0]): {Content: "kappa"}})
	if got := ids("theta"); len(got) != 0 {
		t.Fatalf("twice changed document found by its second content: %v", got)
	}
	if got := ids("kappa"); !slices.Equal(got, []uint32{uint32(rids[0])}) {
		t.Fatalf("twice changed document not found: %v", got)
	}
	if st := ix.Stats(); st.Docs != 3 || st.Tombstones != 2 || st.DeltaDocs != 2 {
		t.Fatalf("stats %+v, want 3 documents, 2 tombstones, 2 in the delta", st)
	}
}

func TestIDF(t *testing.T) {
	docs := []string{"run home", "running late", "home again", "nothing"}
	ix := keyword.Build(func(yield func(keyword.Doc) bool) {
		for i, d := range docs {
			if !yield(keyword.Doc{ID: uint32(i + 1), Text: keyword.Text{Content: d}}) {
				return
			}
		}
	})
	got := ix.IDF([]string{"run", "home", "again", "absent"})
	n := 4.0
	idf := func(df float64) float64 { return max(1e-6, math.Log((n-df+0.5)/(df+0.5))) }
	// "run" and "running" stem alike: two documents hold it, as "home".
	want := []float64{idf(2), idf(2), idf(1), idf(0)}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("IDF[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if keyword.Build(func(func(keyword.Doc) bool) {}).IDF([]string{"x"}) != nil {
		t.Errorf("an empty index has no IDF")
	}
}
