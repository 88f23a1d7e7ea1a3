package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// monthFact is a fact of the scripted month: its key, the query that
// asks for it, and its values in the order they were stated.
type monthFact struct {
	key, query string
	values     []string
}

var monthFacts = []monthFact{
	{"staging.postgres.version", "which postgres version does staging run", []string{"staging runs Postgres 14", "staging runs Postgres 15 after the upgrade", "staging runs Postgres 16 since the October upgrade"}},
	{"staging.db.port", "what port does the staging database listen on", []string{"the staging database listens on port 5432", "the staging database listens on port 5433 behind pgbouncer"}},
	{"billing.owner", "who owns the billing service", []string{"the billing service is owned by Alice", "the billing service is owned by Bob since the reorg", "the billing service is owned by the payments team"}},
	{"deploy.day", "which day do we deploy", []string{"we deploy on Tuesdays", "we deploy on Thursdays now", "we deploy every weekday with the release train"}},
	{"orm.choice", "what did we decide about gorm", []string{"we decided to use gorm for the data layer", "we reversed the gorm decision and use sqlc"}},
	{"node.version", "which node version does the frontend build use", []string{"the frontend builds with Node 18", "the frontend builds with Node 20 LTS"}},
	{"ci.provider", "which CI provider runs our builds", []string{"builds run on CircleCI", "builds run on GitHub Actions after the migration"}},
	{"oncall.rotation", "how long is an on-call rotation", []string{"on-call rotations last one week", "on-call rotations last two weeks from November"}},
	{"redis.maxmemory", "what is the redis maxmemory setting", []string{"redis maxmemory is 2gb", "redis maxmemory is 4gb with allkeys-lru"}},
	{"api.rate.limit", "what is the public API rate limit", []string{"the public API allows 100 requests per minute", "the public API allows 600 requests per minute for paid plans"}},
	{"log.retention", "how long are logs kept", []string{"logs are kept for 14 days", "logs are kept for 30 days in the archive bucket"}},
	{"go.version", "which Go version do services build with", []string{"services build with Go 1.24", "services build with Go 1.26"}},
}

var monthChatter = []string{
	"the coffee machine on floor 3 is broken again", "remember to review the Q4 roadmap doc",
	"the team lunch moved to Friday", "the design review slides are in the shared drive",
	"someone left the staging dashboard open all weekend", "the new hire starts on Monday",
	"the retro notes are in the wiki", "the printer needs toner", "the offsite is in March",
	"the incident postmortem template was updated",
}

// replayMonth states a month of a developer's facts through the API: each
// fact's values in turn (keyed or not), facts stated again, chatter
// between, a day apart. It returns, per fact, the rank of its current
// value and the best rank of a superseded one (0: absent) in the project's
// recall.
func replayMonth(t *testing.T, keyed bool, mods ...func(*config.Config)) (e *apitest.Env, currentFirst, staleInTop3 int) {
	e = apitest.NewEnv(t, append([]func(*config.Config){apitest.NoEmbed}, mods...)...)
	remember := func(content, key string) {
		body := map[string]any{"content": content, "project": "/home/dev/atlas"}
		if keyed {
			body["key"] = key
		}
		e.Post(t, "/api/memory/remember", body).Want(t, 200)
	}
	for round := 0; round < 3; round++ {
		for i, f := range monthFacts {
			if round < len(f.values) {
				remember(f.values[round], f.key)
			} else {
				remember(f.values[len(f.values)-1], f.key) // stated again
			}
			e.Post(t, "/api/memory/remember", map[string]any{"content": monthChatter[(i+round)%len(monthChatter)] + fmt.Sprintf(" (day %d)", round*12+i), "project": "/home/dev/atlas"}).Want(t, 200)
			e.Clock.Advance(24 * time.Hour)
		}
	}
	for _, f := range monthFacts {
		r := e.Post(t, "/api/memory/recall", map[string]any{"query": f.query, "project": "/home/dev/atlas", "limit": 10}).Want(t, 200)
		results, _ := r.JSON["results"].([]any)
		cur := f.values[len(f.values)-1]
		rankCur, rankStale := 0, 0
		for i, x := range results {
			content := x.(map[string]any)["content"].(string)
			if content == cur && rankCur == 0 {
				rankCur = i + 1
			}
			for _, old := range f.values[:len(f.values)-1] {
				if content == old && rankStale == 0 {
					rankStale = i + 1
				}
			}
		}
		if rankCur == 1 {
			currentFirst++
		}
		if rankStale > 0 && rankStale <= 3 {
			staleInTop3++
		}
		if len(mods) == 0 && (rankCur != 1 || rankStale != 0) {
			t.Errorf("%s: current value at rank %d, a superseded one at rank %d\n%s", f.key, rankCur, rankStale, strings.Join(func() []string {
				var s []string
				for _, x := range results {
					s = append(s, x.(map[string]any)["content"].(string))
				}
				return s
			}(), "\n"))
		}
	}
	return e, currentFirst, staleInTop3
}

// The "developer's month": every changed fact's current value is
// recalled first and no superseded value is in the top 3, and nothing is
// lost (each superseded memory stays reachable from its successor). Stated
// with keys, the keys supersede; stated as the same plain sentences, the
// attributes the linker reads do (core/attributes.go), and the chatter
// between loses nothing.
func TestDevelopersMonth(t *testing.T) {
	for _, keyed := range []bool{true, false} {
		e, first, stale := replayMonth(t, keyed)
		t.Logf("keyed %v: current value first for %d of %d, a superseded value in the top 3 for %d", keyed, first, len(monthFacts), stale)
		if first != len(monthFacts) || stale != 0 {
			t.Fatalf("keyed %v: %d of %d first, %d stale in the top 3", keyed, first, len(monthFacts), stale)
		}
		want := 0
		for _, f := range monthFacts {
			want += len(f.values) - 1
		}
		if n := e.Count(t, `SELECT count(*) FROM memories WHERE is_deleted = 1 AND superseded_by IN (SELECT id FROM memories)`); n != want {
			t.Fatalf("keyed %v: %d memories superseded, want one per replaced value (%d)", keyed, n, want)
		}
		if n := e.Count(t, `SELECT count(*) FROM memories WHERE is_deleted = 1 AND superseded_by IS NULL`); n != 0 {
			t.Fatalf("keyed %v: %d memories lost without a successor", keyed, n)
		}
	}
}

// The month again, as plain sentences with supersession off, measures
// evidence (confidence × reinforcement × staleness) alone: the current
// values, restated and fresher, rise above the values they replaced.
// Measured: 3 of 12 current values first without it (weight 0), 4 at
// 0.25, 5 at the default 0.5 and 9 at 1; the replaced values stay in the
// top 3 at every weight (only supersession removes them).
func TestDevelopersMonthEvidence(t *testing.T) {
	first := map[float64]int{}
	for _, w := range []float64{0, config.DefaultMemoryEvidenceWeight} {
		_, f, stale := replayMonth(t, false, func(c *config.Config) { c.Memory.SupersedeAttributes = false; c.Memory.EvidenceWeight = w })
		t.Logf("evidence weight %.2f: current value first for %d of %d, a replaced value in the top 3 for %d", w, f, len(monthFacts), stale)
		first[w] = f
	}
	if first[config.DefaultMemoryEvidenceWeight] < 5 || first[config.DefaultMemoryEvidenceWeight] <= first[0] {
		t.Fatalf("evidence did not lift the current values: %v", first)
	}
}
