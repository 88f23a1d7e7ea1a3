package postgres

import (
	"errors"
	"strings"
	"testing"
)

// A server older than 15 is refused, saying which it is and what cairn
// needs (no such server is at hand: server_version_num as it reports).
func TestOldServerRefused(t *testing.T) {
	for v, want := range map[int]bool{140011: false, 90624: false, 150000: true, 150004: true, 170002: true} {
		err := checkServerVersion(v)
		if (err == nil) != want {
			t.Errorf("server_version_num %d: %v, want accepted %v", v, err, want)
		}
		if err != nil && (!errors.Is(err, ErrOldServer) || !strings.Contains(err.Error(), "needs 15 or newer")) {
			t.Errorf("server_version_num %d: %q", v, err)
		}
	}
	if err := checkServerVersion(140011); !strings.Contains(err.Error(), "the server is 14.11") {
		t.Errorf("%q does not say the server's version", err)
	}
}
