package entities

import "testing"

func TestIsDecision(t *testing.T) {
	yes := []string{
		"We chose Postgres over MySQL for JSON support.", "We decided to drop Windows support.", "decided against a monorepo",
		"Switched from webpack to Vite.", "We migrated away from Heroku.", "Picked Go over Rust for the CLI.",
		"We went with SQLite.", "We went with a monorepo in the end.", "Sticking with pnpm for now.",
		"The team committed to weekly releases.", "Settled on Tailwind.", "We will use gRPC internally.",
		"She prefers Vim over Emacs.", "The project adopted conventional commits.", "We adopted Bazel last year.",
		"Architecture decision: all writes go through one path.", "Design decision: no ORMs.",
		"We decided to use SQLite over Postgres", "James: Samantha and I have decided to move in together!",
	}
	for _, s := range yes {
		if !IsDecision(s) {
			t.Errorf("not a decision: %q", s)
		}
	}
	no := []string{
		"The cache is enabled.", "Tests run with vitest.", "The user likes dark mode.", "Deploy on Fridays.",
		"Caroline: I went with my sister to the pride parade.", "I went with a friend to the museum.",
		"Mira: I finally adopted a greyhound named Biscuit from the shelter last weekend.",
		"We adopted two kittens.", "I was adopted when I was three.", "my adopted sister lives in Ohio", "",
		"Melanie: adopting is a big step, I hear.",
	}
	for _, s := range no {
		if IsDecision(s) {
			t.Errorf("decision: %q", s)
		}
	}
}
