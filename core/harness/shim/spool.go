package shim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/hooks"
	"github.com/cairnmem/cairn/core/httpapi"
)

// ---------------------------------------------------------------------------
// spool: hook writes made while cairn was not running
// ---------------------------------------------------------------------------

// SpoolDir is where `cairn hook` leaves writes while cairn is down.
func SpoolDir(dataDir string) string { return filepath.Join(dataDir, "hook-spool") }

// SpoolEntry is one spooled hook write.
type SpoolEntry struct {
	Kind string          `json:"kind"` // remember, session-end
	At   string          `json:"at"`
	Body json.RawMessage `json:"body"`
}

// WriteSpool stores one entry as its own file (written to a temporary name
// and renamed, so a reader never sees half of it).
func WriteSpool(dataDir string, e SpoolEntry) (string, error) {
	dir := SpoolDir(dataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	data, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	name := filepath.Join(dir, time.Now().UTC().Format("20060102T150405.000000000")+"-"+core.NewID()+".json")
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return "", err
	}
	return name, os.Rename(tmp, name)
}

// IngestSpool replays the spooled hook writes through hk, oldest first, and
// removes each file once it is stored. Replays are idempotent (remember
// carries an idempotency key, session-end upserts by session key), so a
// crash between storing and removing never duplicates. Entries that fail
// validation are moved aside to *.bad; a frozen store leaves them for the
// next start. It returns how many entries were ingested.
func IngestSpool(ctx context.Context, hk *hooks.Hooks, dataDir string) (int, error) {
	dir := SpoolDir(dataDir)
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(names) == 0 {
		return 0, err
	}
	slices.Sort(names)
	n := 0
	var errs []error
	for _, name := range names {
		if ctx.Err() != nil {
			break
		}
		data, err := os.ReadFile(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var e SpoolEntry
		var h hooks.Request
		if err = json.Unmarshal(data, &e); err == nil {
			h, err = httpapi.DecodeHookRequest(e.Body)
		}
		if err == nil {
			switch e.Kind {
			case "remember":
				_, err = hk.Remember(ctx, h)
			case "session-end":
				_, err = hk.SessionEnd(ctx, h)
			default:
				err = core.Invalid("kind", "unknown spool kind %q", e.Kind)
			}
		}
		if errors.Is(err, core.ErrFrozen) {
			return n, nil
		}
		if err != nil {
			var ce *core.Error
			if errors.As(err, &ce) && httpapi.StatusOf(ce.Code) < 500 {
				_ = os.Rename(name, name+".bad")
			}
			errs = append(errs, fmt.Errorf("%s: %w", filepath.Base(name), err))
			continue
		}
		if err := os.Remove(name); err != nil {
			errs = append(errs, err)
		}
		n++
	}
	return n, errors.Join(errs...)
}
