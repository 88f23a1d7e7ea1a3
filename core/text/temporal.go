package text

import "strings"

// A question often says when something happened ("What did Tim say about
// his injury on 16 November, 2023?"), while the memory that answers it,
// stated at the time, says "last week" or nothing. Those words are about
// the question's time, not its subject: a gate that weighs how much of a
// prompt a memory holds must not count them, and a capitalized month is
// not a name.

var temporalWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`january february march april june july august september october
		november december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday
		thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun today yesterday
		tomorrow tonight week weeks weekend month months year years day days recently recent ago last
		earlier later lately`) {
		temporalWords[w] = true
	}
}

// IsTemporalTerm reports whether a lower-cased query term names a time
// rather than a subject: a month or weekday (not "may", which is also a
// verb), a relative time word, a year from 1900 to 2099, a day of the
// month or an ordinal day ("8th", "21st").
func IsTemporalTerm(t string) bool {
	if temporalWords[t] {
		return true
	}
	digits := 0
	for digits < len(t) && t[digits] >= '0' && t[digits] <= '9' {
		digits++
	}
	switch {
	case digits == 0:
		return false
	case digits == len(t) && digits == 4:
		return t[:2] == "19" || t[:2] == "20"
	case digits == len(t) && digits <= 2:
		return true
	case digits <= 2:
		switch t[digits:] {
		case "st", "nd", "rd", "th":
			return true
		}
	}
	return false
}
