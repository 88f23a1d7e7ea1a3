package httpapi_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/connstore"
)

// fill sets every exported field of the struct v points to to a value that
// is not its zero, so omitempty hides none of them.
func fill(v any) {
	rv := reflect.ValueOf(v).Elem()
	for i := range rv.NumField() {
		f := rv.Field(i)
		if !f.CanSet() {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString(rv.Type().Field(i).Name)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Float64:
			f.SetFloat(float64(i) + 0.5)
		case reflect.Bool:
			f.SetBool(true)
		default:
			panic("fill: " + f.Kind().String())
		}
	}
}

// TestWireCopiesMatchTheAPI: the API encodes storage rows (and the error
// ring's entries) where core/wire has copies of them; a client decoding
// the answer into the copy must read every field, and re-encoding must give
// the same JSON.
func TestWireCopiesMatchTheAPI(t *testing.T) {
	same := func(name string, row, view any) {
		t.Helper()
		fill(row)
		want, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(want, view); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(view)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the API answers\n%s\nwire reads it as\n%s", name, want, got)
		}
	}
	same("job", &storage.Job{}, &wire.Job{})
	same("proposal", &storage.Proposal{}, &wire.Proposal{})
	same("memory stats", &storage.MemoryStats{}, &wire.MemoryStats{})
	same("error event", &analytics.ErrorEvent{}, &wire.ErrorEvent{})

	// The local client converts rows with a conversion, which only
	// compiles while the fields agree.
	_ = wire.Job(storage.Job{})
	_ = wire.Proposal(storage.Proposal{})
	_ = wire.MemoryStats(storage.MemoryStats{})

	for name, pair := range map[string][2]any{
		"time layout":      {wire.TimeLayout, storage.TimeLayout},
		"short id":         {wire.ShortIDLen, storage.ShortIDLen},
		"job pending":      {wire.JobPending, storage.JobPending},
		"job leased":       {wire.JobLeased, storage.JobLeased},
		"job completed":    {wire.JobCompleted, storage.JobCompleted},
		"job failed":       {wire.JobFailed, storage.JobFailed},
		"job dead":         {wire.JobDead, storage.JobDead},
		"proposal pending": {wire.ProposalPending, storage.ProposalPending},
		"approved":         {wire.ProposalApproved, storage.ProposalApproved},
		"rejected":         {wire.ProposalRejected, storage.ProposalRejected},
		"applied":          {wire.ProposalApplied, storage.ProposalApplied},
		"skipped":          {wire.ProposalSkipped, storage.ProposalSkipped},
		"connector idle":   {wire.ConnectorIdle, connstore.ConnectorIdle},
		"syncing":          {wire.ConnectorSyncing, connstore.ConnectorSyncing},
		"connector error":  {wire.ConnectorError, connstore.ConnectorError},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s: wire says %v, storage %v", name, pair[0], pair[1])
		}
	}
}
