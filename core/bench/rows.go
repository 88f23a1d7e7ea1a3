package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/cairnmem/cairn/core"
)

// RememberRow is one server configuration remembering the texts from some
// clients.
type RememberRow struct {
	Server         string  `json:"server"`
	Binary         string  `json:"binary,omitempty"`
	Clients        int     `json:"clients"`
	Memories       int     `json:"memories"`
	RememberPerSec float64 `json:"remember_per_sec"`
	P50MS          float64 `json:"remember_p50_ms"`
	P99MS          float64 `json:"remember_p99_ms"`
	DrainMS        float64 `json:"drain_ms"`
	// CPU of the server per memory while remembering and after, until
	// its background work was done.
	IngestCPUMS     float64 `json:"ingest_cpu_ms_per_memory"`
	BackgroundCPUMS float64 `json:"background_cpu_ms_per_memory"`
	DBBytes         float64 `json:"database_bytes_per_memory"`
	Proposals       int64   `json:"pending_proposals"`
}

// RememberLoad measures one server remembering texts from clients callers.
func RememberLoad(ctx context.Context, o ServerOptions, texts []string, clients int, drain time.Duration, progress io.Writer) (*RememberRow, error) {
	srv, err := StartServer(ctx, o)
	if err != nil {
		return nil, err
	}
	defer srv.Remove()
	if err := srv.WaitEmbedderReady(ctx, time.Minute); err != nil {
		return nil, err
	}
	cpu0, _ := srv.CPU()
	load, err := RememberTexts(ctx, srv.Client, texts, "bench", clients)
	if err != nil {
		return nil, err
	}
	cpu1, _ := srv.CPU()
	t0 := time.Now()
	backlog, err := srv.Drain(ctx, drain, progress)
	if err != nil {
		return nil, err
	}
	drained := time.Since(t0)
	cpu2, _ := srv.CPU()
	if err := srv.Stop(); err != nil {
		return nil, err
	}
	m := float64(max(backlog.Memories, 1))
	row := &RememberRow{Server: o.Name, Clients: clients, Memories: int(backlog.Memories), RememberPerSec: load.Rate(),
		P50MS: MS(Percentile(load.Latency, 0.5)), P99MS: MS(Percentile(load.Latency, 0.99)),
		DrainMS: MS(drained), IngestCPUMS: float64(cpu1-cpu0) / float64(time.Millisecond) / m,
		BackgroundCPUMS: float64(cpu2-cpu1) / float64(time.Millisecond) / m, DBBytes: float64(srv.DatabaseBytes()) / m,
		Proposals: backlog.PendingProposals}
	fmt.Fprintf(progress, "bench: %s, %d clients: %.0f remembers/s, drained in %s\n", o.Name, clients, row.RememberPerSec, drained.Round(time.Millisecond))
	return row, nil
}

// LoadRow is one server under the mixed load.
type LoadRow struct {
	Server    string    `json:"server"`
	Binary    string    `json:"binary,omitempty"`
	Memories  int       `json:"memories"`
	Clients   int       `json:"clients"`
	DurationS float64   `json:"duration_s"`
	Ops       []OpStats `json:"ops"`
	// CPUPerSec is the server's CPU seconds per second of load.
	CPUPerSec float64 `json:"server_cpu_per_sec"`
}

// LoadRun starts one server, stores the preload, drains, warms and loads it.
func LoadRun(ctx context.Context, o ServerOptions, pre, rest, queries []string, lo LoadOptions, drain time.Duration, progress io.Writer) (*LoadRow, error) {
	srv, err := StartServer(ctx, o)
	if err != nil {
		return nil, err
	}
	defer srv.Remove()
	if err := srv.WaitEmbedderReady(ctx, time.Minute); err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "bench: %s: remembering %d memories\n", srv.Name, len(pre))
	if _, err := RememberTexts(ctx, srv.Client, pre, lo.Project, 8); err != nil {
		return nil, err
	}
	if _, err := srv.Drain(ctx, drain, progress); err != nil {
		return nil, err
	}
	// One recall of each kind first: a first search builds what later
	// ones reuse (the keyword index, the vector index).
	for _, q := range queries[:min(5, len(queries))] {
		if _, err := srv.Client.Recall(ctx, core.RecallInput{Query: q, Filter: core.MemoryFilter{Project: lo.Project}}); err != nil {
			return nil, fmt.Errorf("warm-up recall: %w", err)
		}
	}
	time.Sleep(2 * time.Second) // a large store's keyword index is built in the background
	lo.Queries, lo.Texts = queries, rest
	fmt.Fprintf(progress, "bench: %s: %d clients for %s\n", srv.Name, lo.Clients, lo.Duration)
	cpu0, _ := srv.CPU()
	res, err := RunLoad(ctx, srv.Addr, lo)
	if err != nil {
		return nil, err
	}
	cpu1, _ := srv.CPU()
	if err := srv.Stop(); err != nil {
		return nil, err
	}
	return &LoadRow{Server: srv.Name, Binary: o.Binary, Memories: len(pre), Clients: lo.Clients, DurationS: res.Elapsed.Seconds(),
		Ops: res.Ops, CPUPerSec: (cpu1 - cpu0).Seconds() / res.Elapsed.Seconds()}, nil
}
