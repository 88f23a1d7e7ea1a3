package extract

import (
	"slices"
	"testing"
)

func TestRuleSubjects(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // each must be among the subjects
		not  []string
	}{
		{"We decided to use sqlc instead of gorm. gorm hid a pile of N+1 queries.", []string{"gorm", "sqlc"}, nil},
		{"Not moment: it's deprecated and huge.", []string{"moment"}, []string{"deprecated"}},
		{"Money arrives as integer cents; format it with Intl.NumberFormat, never with toFixed.", []string{"tofixed"}, nil},
		{"Styling is Tailwind CSS, no CSS-in-JS.", []string{"css", "js"}, []string{"tailwind"}},
		{"We're moving the unit tests from Jest to Vitest.", []string{"jest", "vitest"}, nil},
		{"The invoices page is done, with filters and bulk export.", nil, []string{"filters"}}, // no rule: nothing
	} {
		got := RuleSubjects(tc.in)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("RuleSubjects(%q) = %v; want %q among them", tc.in, got, w)
			}
		}
		for _, w := range tc.not {
			if slices.Contains(got, w) {
				t.Errorf("RuleSubjects(%q) = %v; %q is not what it names", tc.in, got, w)
			}
		}
		if tc.want == nil && got != nil {
			t.Errorf("RuleSubjects(%q) = %v; want none", tc.in, got)
		}
	}
}

func TestReadReplacement(t *testing.T) {
	for _, tc := range []struct {
		in       string
		ok       bool
		old, new []string // each must be among the words
	}{
		{"From now on we use Atlas for migrations instead of goose.", true, []string{"goose"}, []string{"atlas"}},
		{"We decided to use sqlc instead of gorm.", true, []string{"gorm"}, []string{"sqlc"}},
		{"Jest's ESM support keeps breaking with Vite, so we're moving the unit tests from Jest to Vitest.", true, []string{"jest"}, []string{"vitest"}},
		{"We're switching background jobs from asynq on Redis to River, which runs on Postgres.", true, []string{"asynq", "redis"}, []string{"river"}},
		{"We're replacing ESLint and Prettier with Biome: one tool for both.", true, []string{"eslint", "prettier"}, []string{"biome"}},
		{"The REST client was replaced by the generated SDK.", true, []string{"client"}, []string{"generated", "sdk"}},
		{"We no longer use Redis for sessions.", true, []string{"redis"}, nil},
		{"We dropped Moment in favour of date-fns.", true, []string{"moment"}, []string{"date", "fns"}},
		{"We switched to Vitest.", true, nil, []string{"vitest"}},
		{"The chart froze because Recharts renders one SVG node per data point.", false, nil, nil},
		{"Use pnpm, not npm, in this repo.", false, nil, nil},
	} {
		r, ok := ReadReplacement(tc.in)
		if ok != tc.ok {
			t.Errorf("ReadReplacement(%q) ok = %v (%+v); want %v", tc.in, ok, r, tc.ok)
			continue
		}
		for _, w := range tc.old {
			if !slices.Contains(r.Old, w) {
				t.Errorf("ReadReplacement(%q).Old = %v; want %q among them", tc.in, r.Old, w)
			}
		}
		for _, w := range tc.new {
			if !slices.Contains(r.New, w) {
				t.Errorf("ReadReplacement(%q).New = %v; want %q among them", tc.in, r.New, w)
			}
		}
	}
}

func TestPromptGist(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Hi! How's it going?", ""},
		{"Write a haiku about autumn leaves.", ""},
		{"Tell me a joke about Go generics.", ""},
		{"ok thanks, have a nice weekend", ""},
		{"Make it a bit rounder too.", "Make it a bit rounder too."},
		{"lol nice Also write tests for the invoice queries.", "Write tests for the invoice queries."},
		{"haha By the way, the staging database is reset every Sunday at 02:00 UTC, so don't keep test data there.",
			"The staging database is reset every Sunday at 02:00 UTC, so don't keep test data there."},
		{"We have a bug: some customers got two invoices for the same payment yesterday. Can you look into it?",
			"We have a bug: some customers got two invoices for the same payment yesterday. Can you look into it?"},
		{"Makes sense. How do you want to dedupe?", "How do you want to dedupe?"},
		{"😂 ok back to work Run the tests please.", "Run the tests please."},
	} {
		got, ok := PromptGist(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("PromptGist(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}
