package httpapi

import (
	"net/http"
	"testing"

	"github.com/cairnmem/cairn/core/pipeline"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/connectors"
)

// TestStatusOf pins the status of every error code the API answers with:
// the same statuses the handlers used to choose one by one.
func TestStatusOf(t *testing.T) {
	cases := map[string]int{
		core.CodeInvalidJSON: 400, core.CodeInvalidRequest: 400, core.CodeConfirmRequired: 400,
		auth.CodeUnauthorized: 401, auth.CodeForbidden: 403, core.CodeForceDenied: 403,
		core.CodeNotFound: 404, ops.CodeUnknownRepair: 404, core.CodeMethodNotAllowed: 405,
		core.CodeVersionConflict: 409, core.CodeDeleted: 409, core.CodeAlreadyDeleted: 409, core.CodeNotDeleted: 409,
		core.CodeDuplicate: 409, core.CodePinned: 409, core.CodeExpired: 409, pipeline.CodeProposalNotPending: 409,
		ops.CodeRepairInProgress: 409, core.CodeMaintenanceInProgress: 409, core.CodeJobNotRetryable: 409,
		core.CodeTooLarge: 413, auth.CodeRateLimited: 429, ops.CodeRepairFrozen: 429, ops.CodeRepairDisabled: 429,
		ops.CodeRepairCooldown: 429, ops.CodeRepairBudget: 429, core.CodeInternal: 500,
		core.CodeFrozen: 503, core.CodeVectorsUnavailable: 503,
		CodeForbiddenOrigin: 403, CodeForbiddenHost: 403, connectors.CodeRootNotAllowed: 403, CodeUnsupportedMediaType: 415, CodeRequestTimeout: 408, CodeOverloaded: 503,
		CodeHeaderTooLarge:   431,
		core.CodeStorageFull: 507, core.CodeStorageIO: 507, core.CodeStorageCorrupt: 503, core.CodeStorageReadOnly: 503,
		core.CodeStorageUnreachable: 503, core.CodeStorageBehind: 503, core.CodeNotOnPostgres: 501,
		"some_new_code": http.StatusInternalServerError,
	}
	for code, want := range cases {
		if got := StatusOf(code); got != want {
			t.Errorf("StatusOf(%q) = %d, want %d", code, got, want)
		}
	}
	if len(statusByCode) != len(cases)-1 {
		t.Errorf("statusByCode has %d codes, the test pins %d", len(statusByCode), len(cases)-1)
	}
}
