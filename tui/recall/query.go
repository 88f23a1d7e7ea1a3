package recall

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/core/wire"
)

// Query is the search box parsed: free text plus key:value filters.
type Query struct {
	Text   string
	Filter core.MemoryFilter
}

// ParseQuery splits the search box into text and filters. Tokens:
//
//	type:decision  tag:a,b (or tags:)  who:claude  project:cairn
//	pinned:yes|no  imp:0.7 (importance at least)  since:7d|12h|2w|2026-01-31
//
// A token with an unknown key is plain text ("http://x" stays text).
func ParseQuery(s string, now time.Time) (Query, error) {
	var q Query
	var words []string
	for _, tok := range strings.Fields(s) {
		k, v, ok := strings.Cut(tok, ":")
		if !ok || v == "" {
			words = append(words, tok)
			continue
		}
		switch strings.ToLower(k) {
		case "type":
			q.Filter.Type = v
		case "tag", "tags":
			q.Filter.Tags = append(q.Filter.Tags, text.SplitTags(v)...)
		case "who":
			q.Filter.Who = v
		case "project":
			q.Filter.Project = v
		case "pinned", "pin":
			b, err := parseYes(v)
			if err != nil {
				return q, fmt.Errorf("pinned:%s: want yes or no", v)
			}
			q.Filter.Pinned = &b
		case "imp", "importance":
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || x < 0 || x > 1 {
				return q, fmt.Errorf("imp:%s: want a number from 0 to 1", v)
			}
			q.Filter.ImportanceMin = &x
		case "since":
			t, err := parseSince(v, now)
			if err != nil {
				return q, err
			}
			q.Filter.Since = wire.FormatTime(t)
		default:
			words = append(words, tok)
		}
	}
	q.Text = strings.Join(words, " ")
	return q, nil
}

func parseYes(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "yes", "y", "true", "1":
		return true, nil
	case "no", "n", "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("not yes or no")
}

// parseSince reads "7d", "12h", "30m", "2w" (ago) or a date "2026-01-31".
func parseSince(v string, now time.Time) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t, nil
	}
	if len(v) >= 2 {
		n, err := strconv.Atoi(v[:len(v)-1])
		if err == nil && n >= 0 {
			unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[v[len(v)-1]]
			if unit != 0 {
				return now.Add(-time.Duration(n) * unit), nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("since:%s: want 30m, 12h, 7d, 2w or a date like 2026-01-31", v)
}
