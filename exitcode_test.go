package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
)

func TestExitCodeUsageIsTwoFailureIsOne(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{usageError{"--limit must be positive"}, 2},
		{fmt.Errorf("load: %w", &config.ConfigError{Key: "auth.mode", Value: "open", Reason: "want local, team or hybrid"}), 2},
		{fmt.Errorf("remember: %w", core.Invalid("type", "unknown type")), 2},
		{&core.Error{Code: core.CodeNotFound, Message: "no memory"}, 1},
		{errors.New("disk full"), 1},
	} {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}
