package extract

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// facts returns the contents of the heuristic facts of content, as the
// pipeline feeds it (ExtractionInput).
func heuristicFacts(content string) []string {
	in, _ := ExtractionInput(content)
	var out []string
	for _, f := range HeuristicExtract(in).Facts {
		out = append(out, f.Content)
	}
	return out
}

// Chatter never becomes a fact: requests and instructions to the agent,
// the agent narrating its actions, questions, acknowledgements and
// greetings, code and logs, one-off progress, symptoms, jokes and verse.
func TestHeuristicDropsChatter(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"request", "User: Also write tests for the invoice queries."},
		{"polite request", "User: Please rename the handler to ServeInvoices."},
		{"request with a lead-in", "User: Now rename the variable inv to invoice in that test file."},
		{"request after please", "User: A few conventions for this codebase, please keep to them."},
		{"run-on chat", "User: lol nice Also write tests for the invoice queries."},
		{"creative request", "User: Write a haiku about autumn leaves."},
		{"haiku", "User: Write a haiku about autumn leaves.\nAssistant: Crimson leaves drifting\nthe goroutine waits for them\nchannel never closed"},
		{"joke", "User: Tell me a joke about Go generics.\nAssistant: Why did the Go developer wait ten years for generics? Because they were told the interface{} would be temporary."},
		{"narration let me", "Assistant: Let me look at the billing service's webhook handler."},
		{"narration I'll", "Assistant: I'll add a test for the retry case."},
		{"narration now I'm", "Assistant: Now I'm going to port the reminders job to the new queue."},
		{"narration past", "Assistant: Renamed in two files and updated every caller of the handler."},
		{"narration after an ack", "Assistant: Sounds good, let me look at the repository layout first."},
		{"agent observation", "Assistant: The repository has cmd/ and internal/ already, with an empty main package."},
		{"question", "User: Can you look into it?"},
		{"question without a mark", "User: why is the build so slow on the main branch"},
		{"agent question", "Assistant: Should I draft the table for the credit notes in the meantime?"},
		{"greeting", "User: Good morning!\nAssistant: Good morning! What would you like to work on today?"},
		{"thanks", "User: ok thanks, have a nice weekend"},
		{"ack", "User: lgtm, ship it\nAssistant: Pushed to the pagination branch."},
		{"progress", "Assistant: Tests pass now.\nAssistant: All 37 files pass under Vitest."},
		{"progress with a reason", "Assistant: One test fails because it can't reach Postgres on 5432."},
		{"timing", "Assistant: The same query takes about 3 ms now after the change."},
		{"symptom", "User: The revenue chart freezes the whole tab for the big tenants."},
		{"one-off", "User: We have a bug: some customers got two invoices for the same payment yesterday."},
		{"code", "Assistant: Here is the helper:\n```go\nfunc writeError(w http.ResponseWriter, status int, code, msg string) {\n\tw.WriteHeader(status)\n}\n```"},
		{"unfenced code", "User: func (s *Service) Settle(ctx context.Context, id string) error {\n\treturn s.db.MarkPaid(ctx, id)\n}"},
		{"log", "User: getting this now\n2025-03-04 10:12:01 ERROR dial tcp 127.0.0.1:5432: connect: connection refused\npanic: runtime error: invalid memory address"},
		{"fragment", "User: Quick check before the planning meeting."},
		{"dangling pronoun", "User: Let's get started today. It's a Go service for invoices and payments."},
		{"testdata chatter", readTranscript(t, "chatter.txt")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := heuristicFacts(tc.in); len(got) > 0 {
				t.Errorf("facts from chatter: %q", got)
			}
		})
	}
}

// Knowledge is kept: decisions with their reasons, preferences and
// conventions, commands, environment facts, causes and fixes, what changed,
// status; a statement spanning sentences stays one fact.
func TestHeuristicKeepsKnowledge(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
		typ      string // the first fact's type, when set
	}{
		{"decision and its reason", "User: We decided to use sqlc instead of gorm. gorm hid a pile of N+1 queries in our last project.",
			[]string{"We decided to use sqlc instead of gorm. gorm hid a pile of N+1 queries in our last project."}, "decision"},
		{"reason before the decision", "User: goose's out-of-order migrations bit us twice. From now on we use Atlas for migrations instead of goose.",
			[]string{"goose's out-of-order migrations bit us twice. From now on we use Atlas for migrations instead of goose."}, ""},
		{"preference", "User: I prefer named exports over default exports, everywhere.", []string{"I prefer named exports over default exports, everywhere."}, ""},
		{"rule as a request", "User: Use pnpm, not npm, in this repo; a package-lock.json must never be committed.",
			[]string{"Use pnpm, not npm, in this repo; a package-lock.json must never be committed."}, "rule"},
		{"command", "User: For the record, run the whole check with `make check` before every push.",
			[]string{"Run the whole check with `make check` before every push."}, ""},
		{"command after an ack", "User: Good, apply migrations with `make migrate` then.", []string{"Apply migrations with `make migrate` then."}, "procedural"},
		{"environment", "User: The API base URL comes from the VITE_API_URL environment variable.",
			[]string{"The API base URL comes from the VITE_API_URL environment variable."}, ""},
		{"environment with a reason", "User: `make db-up` starts a Postgres container on port 5433, because 5432 is taken by my local Postgres.",
			[]string{"`make db-up` starts a Postgres container on port 5433, because 5432 is taken by my local Postgres."}, ""},
		{"cause", "Assistant: The chart froze because Recharts renders one SVG node per data point.",
			[]string{"The chart froze because Recharts renders one SVG node per data point."}, "issue"},
		{"cause spanning sentences", "Assistant: The duplicates came from the payment provider retrying the webhook. That happened because the handler was not idempotent.",
			[]string{"The duplicates came from the payment provider retrying the webhook. That happened because the handler was not idempotent."}, ""},
		{"fix", "Assistant: The fix is to record each event id in a processed_events table with a unique constraint.",
			[]string{"The fix is to record each event id in a processed_events table with a unique constraint."}, "issue"},
		{"what changed", "User: Redis is gone from the stack now; the queue runs on Postgres.", []string{"Redis is gone from the stack now; the queue runs on Postgres."}, ""},
		{"status", "User: Dark mode is postponed until after the beta; nobody works on it before then.",
			[]string{"Dark mode is postponed until after the beta; nobody works on it before then."}, ""},
		{"deployment", "User: The dashboard is deployed on Vercel, and main goes to production.", []string{"The dashboard is deployed on Vercel, and main goes to production."}, ""},
		{"note lead-in", "User: By the way, the staging database is reset every Sunday at 02:00 UTC.",
			[]string{"The staging database is reset every Sunday at 02:00 UTC."}, ""},
		{"a decision and a preference", "User: We decided to move the billing service to Go because the old runtime leaked memory. The billing team prefers small releases every Tuesday.",
			[]string{"We decided to move the billing service to Go because the old runtime leaked memory.", "The billing team prefers small releases every Tuesday."}, "decision"},
		{"two facts", "User: The database is Postgres 16. Styling is Tailwind CSS, no CSS-in-JS.",
			[]string{"The database is Postgres 16.", "Styling is Tailwind CSS, no CSS-in-JS."}, ""},
		{"a short statement joins the next", "User: We use date-fns. The API sends UTC ISO 8601 strings.",
			[]string{"We use date-fns. The API sends UTC ISO 8601 strings."}, ""},
		{"a pronoun after a short statement", "User: We use River. It runs on Postgres, so there is one service less.",
			[]string{"We use River. It runs on Postgres, so there is one service less."}, ""},
		{"a rule without a verb", "User: And only function components with hooks, no class components.",
			[]string{"Only function components with hooks, no class components."}, ""},
		{"an event in a remembered chat", "Caroline: I went to the LGBTQ support group yesterday and it was powerful.",
			[]string{"I went to the LGBTQ support group yesterday and it was powerful."}, ""},
		{"bug transcript", readTranscript(t, "webhook-bug.txt"), []string{
			"The duplicates came from the payment provider retrying the webhook: our handler was slower than the provider's timeout and was not idempotent, so each retry created another invoice.",
			"The fix is to record each event id in a processed_events table with a unique constraint and skip events we have already seen."}, ""},
		{"conventions transcript", readTranscript(t, "conventions.txt"), []string{
			"I prefer returning errors over panicking, everywhere.",
			"Run the linters with `make lint` before every push.",
			"We always write table-driven tests.",
			"From now on we use Atlas for migrations instead of goose. goose's out-of-order migrations bit us twice."}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := heuristicFacts(tc.in)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("facts:\n got %q\nwant %q", got, tc.want)
			}
			if tc.typ != "" {
				in, _ := ExtractionInput(tc.in)
				if typ := HeuristicExtract(in).Facts[0].Type; typ != tc.typ {
					t.Errorf("type %s, want %s", typ, tc.typ)
				}
			}
		})
	}
}

func readTranscript(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "transcripts", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzHeuristicExtract: any text (a transcript or not) returns without
// panicking, within the limits, and every fact is a run of the input's
// words (so a fact of an ordinary memory restates it).
func FuzzHeuristicExtract(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txt"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range []string{"", "User:", "User: \nAssistant: ```", "Assistant: ```go\nfunc f() {\n", "User: ok Also Run Now Then Please x",
		"User: because because. it it. so so.", "\x00\xff User: \u2028 Assistant:", strings.Repeat("User: We always use pnpm. ", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		r := HeuristicExtract(content)
		if len(r.Facts) > ExtractMaxFacts {
			t.Fatalf("%d facts", len(r.Facts))
		}
		input := " " + strings.Join(strings.FieldsFunc(strings.ToLower(strings.ToValidUTF8(content, "\uFFFD")), notWordRune), " ") + " "
		for _, fa := range r.Facts {
			n := utf8.RuneCountInString(fa.Content)
			if n < FactMinChars || n > FactMaxChars || !utf8.ValidString(fa.Content) || !validFactType(fa.Type) {
				t.Fatalf("bad fact %+v", fa)
			}
			words := strings.FieldsFunc(strings.ToLower(fa.Content), notWordRune)
			if n == FactMaxChars && len(words) > 0 {
				words = words[:len(words)-1] // cut mid-word
			}
			if !strings.Contains(input, " "+strings.Join(words, " ")+" ") {
				t.Fatalf("fact %q is not a run of the input's words", fa.Content)
			}
		}
	})
}

func notWordRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != '\uFFFD' && !isSpaceRune(r))
}

func isSpaceRune(r rune) bool {
	return r == '\u2028' || r == '\u2029' || r == '\u00a0' || r == '\u3000' || r >= '\u2000' && r <= '\u200a'
}
