package storage

import "time"

// TimeLayout is the one timestamp format cairn stores: RFC 3339, UTC, with
// milliseconds. Strings in this layout sort in time order.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in [TimeLayout].
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime parses a stored timestamp. It also accepts any RFC 3339 time and
// SQLite's "YYYY-MM-DD HH:MM:SS", which imported databases may hold.
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse(TimeLayout, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	return time.Parse("2006-01-02 15:04:05", s)
}
