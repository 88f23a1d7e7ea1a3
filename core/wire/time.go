package wire

import "time"

// TimeLayout is the one timestamp format cairn answers with: RFC 3339,
// UTC, with milliseconds (the store's own, storage.TimeLayout). Strings in
// this layout sort in time order.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in [TimeLayout].
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime parses a timestamp of an answer. It also accepts any RFC 3339
// time and SQLite's "YYYY-MM-DD HH:MM:SS", which imported databases may
// hold.
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse(TimeLayout, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	return time.Parse("2006-01-02 15:04:05", s)
}

// ShortIDLen is how many trailing characters of an id the UI shows and
// the history search accepts (storage.ShortIDLen).
const ShortIDLen = 8
