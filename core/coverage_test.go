package core

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/text"
)

// slowCoverage is TermCoverage through the content's term set, the path
// quickCoverage must agree with.
func slowCoverage(qterms []string, content string) float64 {
	if len(qterms) == 0 {
		return 0
	}
	have := map[string]bool{}
	for _, t := range text.QueryTerms(content) {
		have[t] = true
	}
	n := 0
	for _, t := range qterms {
		if have[t] || slices.ContainsFunc(text.IrregularVerbs[t], func(f string) bool { return have[f] }) {
			n++
		}
	}
	return float64(n) / float64(len(qterms))
}

var coverageQueries = []string{
	"When did Caroline go to the LGBTQ support group?",
	"what did she buy", "who went there", "the a of", "Straße café naïve", "json rpc server",
	"ran run running", "what is it", "K kelvin İstanbul", "library implementing",
}

var coverageContents = []string{
	"", "the", "the of a", "Caroline went to the LGBTQ support group on 7 May 2023.",
	"She bought a new car; she buys one every year.", "They ran the race, then run again.",
	"library implementing json-rpc C++ servers:  * Type checking  * Malformed request handling",
	"STRASSE Straße CAFÉ Naïve \u212aelvin İSTANBUL", "\xff\xfe invalid utf8 café",
	strings.Repeat("x", 70) + " library", strings.Repeat("word ", 140) + "library",
	strings.Repeat("a the of ", 20), strings.Repeat("b", 9000),
	"one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen " +
		"seventeen eighteen nineteen twenty twentyone twentytwo twentythree twentyfour twentyfive twentysix " +
		"twentyseven twentyeight twentynine thirty thirtyone thirtytwo thirtythree library",
	"e\u0301te\u0301 combining, private \ue000 use",
}

// quickCoverage answers as the full path whenever it answers, and answers
// for short content; with CAIRN_BENCH_DATA (the 100k mix, JSONL or text)
// and CAIRN_BENCH_QUERIES (LoCoMo), every line against every question.
func TestQuickCoverageMatchesTermSet(t *testing.T) {
	queries := coverageQueries
	if path := os.Getenv("CAIRN_BENCH_QUERIES"); path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var samples []struct {
			QA []struct {
				Question string `json:"question"`
			} `json:"qa"`
		}
		if err := json.Unmarshal(raw, &samples); err != nil {
			t.Fatal(err)
		}
		for _, s := range samples {
			for _, qa := range s.QA {
				queries = append(queries, qa.Question)
			}
		}
	}
	qterms := make([][]string, len(queries))
	for i, q := range queries {
		qterms[i] = text.QueryTerms(q)
	}
	qterms = append(qterms, []string{"bought", "go"}, []string{"the"}, []string{"run", "run"})
	answered, checked := 0, 0
	check := func(content string) {
		for _, qt := range qterms {
			checked++
			got, ok := quickCoverage(qt, content)
			if !ok {
				continue
			}
			answered++
			if want := slowCoverage(qt, content); got != want {
				t.Fatalf("quickCoverage(%q, %q) = %v, the term set says %v", qt, content, got, want)
			}
		}
	}
	for _, c := range coverageContents {
		check(c)
	}
	if path := os.Getenv("CAIRN_BENCH_DATA"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for i := 0; sc.Scan(); i++ {
			line := sc.Text()
			var m struct{ Content string }
			if json.Unmarshal([]byte(line), &m) == nil && m.Content != "" {
				line = m.Content
			}
			if len(queries) > 100 && i%10 != 0 {
				continue // every tenth line against a thousand questions
			}
			check(line)
		}
	}
	t.Logf("%d of %d answered by the quick path", answered, checked)
	if answered == 0 {
		t.Fatal("the quick path never answered")
	}
	if _, ok := quickCoverage([]string{"library"}, "Caroline went to the LGBTQ support group."); !ok {
		t.Error("a short sentence takes the full path")
	}
}

func FuzzQuickCoverage(f *testing.F) {
	for i, c := range coverageContents {
		f.Add(coverageQueries[i%len(coverageQueries)], c)
	}
	f.Fuzz(func(t *testing.T, q, content string) {
		qt := text.QueryTerms(q)
		if got, ok := quickCoverage(qt, content); ok {
			if want := slowCoverage(qt, content); got != want {
				t.Fatalf("quickCoverage(%q, %q) = %v, the term set says %v", qt, content, got, want)
			}
		}
	})
}

func BenchmarkTermCoverage(b *testing.B) {
	qt := text.QueryTerms("When did Caroline go to the LGBTQ support group?")
	content := "Melanie: Thanks, Caroline! The event was really thought-provoking. I'm glad we went to the LGBTQ support group together."
	b.Run("term-set", func(b *testing.B) {
		for b.Loop() {
			slowCoverage(qt, content)
		}
	})
	b.Run("quick", func(b *testing.B) {
		for b.Loop() {
			quickCoverage(qt, content)
		}
	})
}
