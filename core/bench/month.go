package bench

// The "developer's month": a scripted month of a
// developer's facts that change (versions, ports, owners, decisions
// reversed), stated again, with chatter between. The HTTP test
// (core/httpapi TestDevelopersMonth) replays it in process and the
// integration test (TestDevelopersMonthThroughTheBinary) through the real
// binary, before and after an export and import.

import (
	"fmt"
	"slices"
)

// MonthFact is a fact of the scripted month: its key, the query that
// asks for it, and its values in the order they were stated.
type MonthFact struct {
	Key, Query string
	Values     []string
}

// MonthFacts are the month's twelve facts that change.
var MonthFacts = []MonthFact{
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

// MonthChatter is what falls between the facts.
var MonthChatter = []string{
	"the coffee machine on floor 3 is broken again", "remember to review the Q4 roadmap doc",
	"the team lunch moved to Friday", "the design review slides are in the shared drive",
	"someone left the staging dashboard open all weekend", "the new hire starts on Monday",
	"the retro notes are in the wiki", "the printer needs toner", "the offsite is in March",
	"the incident postmortem template was updated",
}

// MonthProject is the project the month is stated in.
const MonthProject = "/home/dev/atlas"

// MonthStatements is the month in the order it is stated, a day apart:
// in each of three rounds, each fact's next value (or its current one
// again, once it has no other) followed by a line of chatter.
func MonthStatements() []string {
	var out []string
	for round := 0; round < 3; round++ {
		for i, f := range MonthFacts {
			out = append(out, f.Values[min(round, len(f.Values)-1)])
			out = append(out, MonthChatter[(i+round)%len(MonthChatter)]+fmt.Sprintf(" (day %d)", round*12+i))
		}
	}
	return out
}

// Ranks are the 1-based rank of f's current value among recalled
// contents and the best rank of a value it replaced (0: absent).
func (f MonthFact) Ranks(contents []string) (current, stale int) {
	cur := f.Values[len(f.Values)-1]
	for i, c := range contents {
		if c == cur && current == 0 {
			current = i + 1
		}
		if stale == 0 && slices.Contains(f.Values[:len(f.Values)-1], c) {
			stale = i + 1
		}
	}
	return current, stale
}
