package text_test

import "regexp"

var markerRE = regexp.MustCompile(`\[REDACTED:[a-z_]+\]`)
