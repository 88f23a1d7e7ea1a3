package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
)

// fixedNow is the clock of every UI test, so ages and goldens are stable.
var fixedNow = tuitest.FixedNow

// Ids of the seeded memories and of the pipeline fixture's jobs and
// proposals, so renders are the same on every run.
const (
	idPostgres  = tuitest.IDPostgres
	idSQLite    = tuitest.IDSQLite
	idTabs      = tuitest.IDTabs
	idDeploy    = tuitest.IDDeploy
	idFlakyTest = tuitest.IDFlakyTest
	idAPI       = tuitest.IDAPI
	jobDone     = tuitest.JobDone
	jobDead     = tuitest.JobDead
	jobBacking  = tuitest.JobBacking
	jobStale    = tuitest.JobStale
	jobPending  = tuitest.JobPending
	propUpdate  = tuitest.PropUpdate
	propDelete  = tuitest.PropDelete
)

// harness is the tuitest harness over the root model, with short names
// for what the tests of this package reach into.
type harness struct {
	*tuitest.Harness[*Model]
	t   *testing.T
	m   *Model
	app *app.App
	svc *core.Service
	db  *storage.DB
}

type harnessOpts struct {
	theme         string
	width, height int
	client        func(ap *app.App) client.Client
	noSeed        bool
}

// newHarness is the root model over a seeded store, sized, initialised
// and showing a fixed status.
func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	th := tuitest.New(t, tuitest.Options{Theme: o.theme, Width: o.width, Height: o.height, Client: o.client, NoSeed: o.noSeed},
		func(e tuitest.Env) *Model {
			return New(Options{Client: e.Client, Addr: e.Addr, Theme: e.Theme, Version: "test", Now: e.Now, Clock: e.Clock})
		})
	h := &harness{Harness: th, t: t, m: th.M, app: th.App, svc: th.Svc, db: th.DB}
	h.fixStatus()
	return h
}

// fixStatus replaces the measured status (its health is a latency) with a
// fixed one so renders are stable.
func (h *harness) fixStatus() { h.Send(StatusMsg{Status: tuitest.FixedStatus}) }

// pipelineFixture fills the queue and the proposals (tuitest.PipelineFixture).
func pipelineFixture(h *harness) {
	h.t.Helper()
	tuitest.PipelineFixture(h.t, h.app, h.db)
}

var keyPress = tuitest.KeyPress

func teaWindowSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }
