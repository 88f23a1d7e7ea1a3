package uselite

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// benchBatch returns n sentences of 6 to 30 words drawn from a fixed
// word list (deterministic).
func benchBatch(n int) []string {
	words := strings.Fields(`the a we deploy on Fridays database migration failed
		when do ship release tests run make build cache server memory leak login
		users cannot sign in after update config file environment variable prod
		staging token secret key rotate weekly review pull request merge branch
		main CI pipeline flaky timeout retry backoff queue worker index search
		embedding vector recall note agent repository command script go module`)
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]string, n)
	for i := range out {
		k := 6 + r.IntN(25)
		s := make([]string, k)
		for j := range s {
			s[j] = words[r.IntN(len(words))]
		}
		out[i] = strings.Join(s, " ")
	}
	return out
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := Load(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEmbedQuery(b *testing.B) {
	m := loadTestModel(b)
	q := []string{"how do we roll back a failed database migration in prod?"}
	for b.Loop() {
		if _, err := m.Embed(q); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(m.Tokenize(q[0]))), "tokens")
}

func BenchmarkEmbedBatch(b *testing.B) {
	m := loadTestModel(b)
	texts := benchBatch(32)
	tokens := 0
	for _, t := range texts {
		tokens += len(m.Tokenize(t))
	}
	n := 0
	for b.Loop() {
		if _, err := m.Embed(texts); err != nil {
			b.Fatal(err)
		}
		n += len(texts)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "embeddings/s")
	b.ReportMetric(float64(tokens)/float64(len(texts)), "tokens/text")
	b.ReportMetric(float64(n/len(texts)*tokens)/b.Elapsed().Seconds(), "tokens/s")
}

func BenchmarkEmbedParagraph(b *testing.B) {
	m := loadTestModel(b)
	p := []string{strings.Repeat("The agent stores a short note about the repository. ", 20)}
	for b.Loop() {
		if _, err := m.Embed(p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(m.Tokenize(p[0]))), "tokens")
}

func BenchmarkTokenize(b *testing.B) {
	m := loadTestModel(b)
	text := strings.Repeat("AWS_PROFILE=prod tools/deploy.sh Café crème 東京 ", 400) // ~20 KB, capped
	for b.Loop() {
		m.Tokenize(text)
	}
}
