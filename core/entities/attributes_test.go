package entities

import (
	"fmt"
	"testing"
)

// The statements ReadAttributes reads, and what it reads from them.
func TestReadAttributes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"staging runs Postgres 14", "staging|postgres version|14|attribute"},
		{"staging runs Postgres 15 after the upgrade", "staging|postgres version|15|attribute"},
		{"the staging database listens on port 5433 behind pgbouncer", "staging database|port|5433|attribute"},
		{"The API's port is 8080.", "api|port|8080|attribute"},
		{"the billing service is owned by Bob since the reorg", "billing service|owner|bob|attribute"},
		{"the billing service is owned by the payments team", "billing service|owner|payments team|attribute"},
		{"we deploy on Thursdays now", "deploys|schedule|thursday|attribute"},
		{"we deploy every weekday with the release train", "deploys|schedule|weekday|attribute"},
		{"we decided to use gorm for the data layer", "data layer|choice|gorm|constraint"},
		{"the frontend builds with Node 20 LTS", "frontend|node version|20|attribute"},
		{"services build with Go 1.26", "services|go version|1.26|attribute"},
		{"builds run on GitHub Actions after the migration", "builds|platform|github actions|attribute"},
		{"on-call rotations last two weeks from November", "on-call rotations|duration|2 week|attribute"},
		{"redis maxmemory is 4gb with allkeys-lru", "redis|maxmemory|4gb|attribute"},
		{"the public API allows 600 requests per minute for paid plans", "public api|requests per minute limit|600|attribute"},
		{"logs are kept for 30 days in the archive bucket", "logs|retention|30 day|attribute"},
		{"timezone: America/New_York", "timezone|value|america/new_york|attribute"},
		{"staging.db.port: 5433", "staging.db|port|5433|attribute"},
		{"the size of the pool is 20", "pool|size|20|attribute"},
	} {
		r := ReadAttributes(c.in)
		if len(r.Attributes) != 1 || len(r.Changes) != 0 {
			t.Errorf("%q: %+v", c.in, r)
			continue
		}
		a := r.Attributes[0]
		if got := fmt.Sprintf("%s|%s|%s|%s", a.Entity, a.Name, a.Value, a.Kind); got != c.want {
			t.Errorf("%q: got %s, want %s", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"we reversed the gorm decision and use sqlc", "|gorm|sqlc|constraint"},
		{"we migrated builds from CircleCI to GitHub Actions", "builds|circleci|github actions|constraint"},
		{"we switched from Jenkins to Buildkite last week", "|jenkins|buildkite|constraint"},
		{"we no longer use Heroku", "|heroku||attribute"},
	} {
		r := ReadAttributes(c.in)
		if len(r.Changes) != 1 || len(r.Attributes) != 0 {
			t.Errorf("%q: %+v", c.in, r)
			continue
		}
		ch := r.Changes[0]
		if got := fmt.Sprintf("%s|%s|%s|%s", ch.Entity, ch.From, ch.To, ch.Kind); got != c.want {
			t.Errorf("%q: got %s, want %s", c.in, got, c.want)
		}
	}
	// Nothing it cannot read reliably.
	for _, in := range []string{
		"Caroline: my sister runs Postgres 14 at work",          // a conversation turn
		"does staging run Postgres 14?",                         // a question
		"staging does not run Postgres 14",                      // a negation
		"we might deploy on Fridays",                            // a hedge
		"we will move builds from CircleCI to GitHub Actions",   // a plan
		"it runs Python 3",                                      // a pronoun
		"the program uses GTK 3",                                // a generic subject
		"this package requires Python 3.8",                      // a generic subject
		"staging runs Postgres 14 and staging runs Postgres 15", // two values
		"the app uses about 2 GB",                               // no named thing
		"the team lunch moved to Friday",                        // no "from"
		"the offsite is in March",
		"note: check the logs", // a label, not a key
		"Melanie: Yeah, I painted that lake sunrise last year!",
		"library implementing json-rpc C++ servers:  * Type checking  * Malformed request handling",
		"the event runs on Saturday",
		"my age is 32",
	} {
		if r := ReadAttributes(in); !r.Empty() {
			t.Errorf("%q read as %+v", in, r)
		}
	}
}

// FuzzReadAttributes: any text reads without panicking, the same way
// twice; every attribute has an entity, a name, a value and a known kind
// and aspect, and one text never gives two values of one attribute.
func FuzzReadAttributes(f *testing.F) {
	for _, s := range []string{"staging runs Postgres 14", "we reversed the gorm decision and use sqlc", "timezone: Europe/Stockholm",
		"we migrated builds from CircleCI to GitHub Actions", "the size of the pool is 20", "on-call rotations last two weeks",
		"the public API allows 600 requests per minute", "x's port is 80", "a: b", "we deploy every", "'s is 1", "\xff: 1",
		"staging runs Postgres 14 and staging runs Postgres 15", "Caroline: staging runs Postgres 14"} {
		f.Add(s)
	}
	aspects := set(AspectVersions + " " + AspectNetwork + " " + AspectPlatform + " " + AspectOwnership + " " + AspectSchedule + " " +
		AspectLifecycle + " " + AspectLimits + " " + AspectDecisions + " " + AspectSettings)
	f.Fuzz(func(t *testing.T, content string) {
		r := ReadAttributes(content)
		if again := ReadAttributes(content); fmt.Sprint(again) != fmt.Sprint(r) {
			t.Fatalf("not deterministic: %+v then %+v", r, again)
		}
		seen := map[string]bool{}
		for _, a := range r.Attributes {
			if a.Entity == "" || a.Name == "" || a.Value == "" || (a.Kind != KindAttribute && a.Kind != KindConstraint) || !aspects[a.Aspect] {
				t.Fatalf("incomplete attribute %+v", a)
			}
			k := a.Entity + "\x00" + a.Name
			if seen[k] {
				t.Fatalf("two values of %q %q: %+v", a.Entity, a.Name, r)
			}
			seen[k] = true
		}
		for _, c := range r.Changes {
			if c.From == "" || c.From == c.To {
				t.Fatalf("bad change %+v", c)
			}
		}
	})
}
