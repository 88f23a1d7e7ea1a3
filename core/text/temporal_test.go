package text

import "testing"

func TestIsTemporalTerm(t *testing.T) {
	for term, want := range map[string]bool{
		"november": true, "dec": true, "monday": true, "yesterday": true, "2023": true, "1999": true,
		"16": true, "8th": true, "21st": true, "2nd": true, "3rd": true,
		"may": false, "tim": false, "injury": false, "2100": false, "1850": false, "123": false,
		"5433": false, "v2": false, "8thing": false, "x86": false, "": false, "th": false,
	} {
		if got := IsTemporalTerm(term); got != want {
			t.Errorf("IsTemporalTerm(%q) = %v, want %v", term, got, want)
		}
	}
}
