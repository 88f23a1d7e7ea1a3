package text

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The labelled redaction corpus (testdata/redaction, see its README):
// positives.txt holds one case per line with each secret between ⟦ and ⟧
// (⏎ stands for a line break); negatives_*.txt hold ordinary lines that
// must come out unchanged. TestRedactionCorpus measures both sides:
//
//	go test -run TestRedactionCorpus -v ./core/text/
const (
	secretOpen  = "⟦"
	secretClose = "⟧"
	lineBreak   = "⏎"
)

type labelled struct {
	file    string
	line    int
	text    string
	secrets [][2]int // byte ranges of text
}

func readCorpus(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "redaction", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if l := sc.Text(); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// parseLabelled strips the secret marks of one positive line.
func parseLabelled(t *testing.T, file string, n int, raw string) labelled {
	t.Helper()
	l := labelled{file: file, line: n}
	raw = strings.ReplaceAll(raw, lineBreak, "\n")
	var b strings.Builder
	for {
		i := strings.Index(raw, secretOpen)
		if i < 0 {
			break
		}
		j := strings.Index(raw[i:], secretClose)
		if j < 0 {
			t.Fatalf("%s:%d: unclosed %s", file, n, secretOpen)
		}
		b.WriteString(raw[:i])
		start := b.Len()
		b.WriteString(raw[i+len(secretOpen) : i+j])
		l.secrets = append(l.secrets, [2]int{start, b.Len()})
		raw = raw[i+j+len(secretClose):]
	}
	if strings.Contains(raw, secretClose) {
		t.Fatalf("%s:%d: %s without %s", file, n, secretClose, secretOpen)
	}
	b.WriteString(raw)
	l.text = b.String()
	if len(l.secrets) == 0 {
		t.Fatalf("%s:%d: a positive line without a marked secret", file, n)
	}
	return l
}

func covered(spans []span, start, end int) bool {
	for i := start; i < end; i++ {
		in := false
		for _, sp := range spans {
			if sp.start <= i && i < sp.end {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return true
}

// TestRedactionCorpus: recall (every marked secret removed whole) and
// precision (every redaction is of a marked secret; no negative line
// changed) must both be 100%.
func TestRedactionCorpus(t *testing.T) {
	var secrets, caught, redactions, wanted int
	kinds := map[string]int{}
	for n, raw := range readCorpus(t, "positives.txt") {
		l := parseLabelled(t, "positives.txt", n+1, raw)
		spans := redactSpans(l.text)
		out, _ := Redact(l.text)
		for _, s := range l.secrets {
			secrets++
			secret := l.text[s[0]:s[1]]
			if covered(spans, s[0], s[1]) && !strings.Contains(out, secret) {
				caught++
			} else {
				t.Errorf("positives.txt:%d: secret %q left in %q", l.line, secret, out)
			}
		}
		for _, sp := range spans {
			redactions++
			kinds[sp.kind]++
			hit := false
			for _, s := range l.secrets {
				if sp.start < s[1] && s[0] < sp.end {
					hit = true
				}
			}
			if hit {
				wanted++
			} else {
				t.Errorf("positives.txt:%d: redacted %q, which is not a marked secret: %q", l.line, l.text[sp.start:sp.end], out)
			}
		}
	}
	negatives, changed := 0, 0
	files, err := filepath.Glob(filepath.Join("testdata", "redaction", "negatives_*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no negative corpus: %v", err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		for n, line := range readCorpus(t, name) {
			negatives++
			out, k := Redact(line)
			if k != 0 || out != line {
				changed++
				redactions += k
				t.Errorf("%s:%d: ordinary text changed:\n  in:  %q\n  out: %q", name, n+1, line, out)
			}
		}
	}
	if secrets < 60 || negatives < 500 {
		t.Errorf("corpus too small: %d secrets (want 60+), %d negative lines (want 500+)", secrets, negatives)
	}
	recall := 100 * float64(caught) / float64(secrets)
	precision := 100 * float64(wanted) / float64(max(redactions, 1))
	t.Logf("redaction corpus: recall %.1f%% (%d/%d secrets removed), precision %.1f%% (%d/%d redactions were secrets; %d/%d negative lines unchanged)",
		recall, caught, secrets, precision, wanted, redactions, negatives-changed, negatives)
	t.Logf("kinds: %s", fmt.Sprint(kinds))
	if caught != secrets || wanted != redactions || changed != 0 {
		t.Errorf("recall %.1f%%, precision %.1f%%: both must be 100%%", recall, precision)
	}
}
