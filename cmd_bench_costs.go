package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/bench"
)

const benchCostsUsage = "bench costs --data FILE [--questions FILE] [--n 10000] [--recalls 200] [--clients 8] [--starts 5] [--binary PATH[,PATH]] [--set section.key=value] [--keep] [--json]"

// costsRow is what one server configuration costs its user.
type costsRow struct {
	Server   string `json:"server"`
	Binary   string `json:"binary,omitempty"`
	Memories int64  `json:"memories"`
	// CPU of the server per memory from the first remember until its
	// background work was done, and the part after the last remember.
	CPUMS           float64 `json:"cpu_ms_per_memory"`
	BackgroundCPUMS float64 `json:"background_cpu_ms_per_memory"`
	DrainS          float64 `json:"drain_s"`
	// Recall through HTTP, one caller, the query's embedding included:
	// the API's default mode and keyword only.
	RecallP50MS  float64 `json:"recall_p50_ms"`
	RecallP99MS  float64 `json:"recall_p99_ms"`
	RecallMethod string  `json:"recall_method"`
	KeywordP50MS float64 `json:"keyword_p50_ms"`
	KeywordP99MS float64 `json:"keyword_p99_ms"`
	// The database and its WAL after the recalls, and the largest WAL
	// seen from the first remember on.
	DBBytes    int64 `json:"database_bytes"`
	WALBytes   int64 `json:"wal_bytes"`
	WALMaxSeen int64 `json:"wal_max_bytes"`
	RSSBytes   int64 `json:"rss_bytes"`
	// Spawn to the first recall answered, median of the starts.
	FirstAnswerMS  float64 `json:"first_answer_ms"`
	FirstAnswerMax float64 `json:"first_answer_max_ms"`
	FirstMethod    string  `json:"first_answer_method"`
}

// costsServer is one configuration's server during the run.
type costsServer struct {
	srv  *bench.Server
	row  costsRow
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	wal  int64
	hyb  []time.Duration
	kw   []time.Duration
	firs []time.Duration
}

// benchCosts is `cairn bench costs`: what a user pays for cairn, each
// figure through the API as users call it, the default configuration
// beside the lean one (pipeline and embedder off) in the same run. Both
// servers remember the same texts and drain their background work; then
// the questions are asked of both in turn, one at a time, and each is
// stopped and started again in turn to time a start to its first
// answer.
func benchCosts(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, _ := newFlagSet("bench costs", benchCostsUsage)
	data := fs.String("data", "", "text file: one memory per line")
	questions := fs.String("questions", "", "text file: one question per line (default: a few words of every stored line in turn)")
	n := fs.Int("n", 10000, "how many lines to remember")
	recalls := fs.Int("recalls", 200, "questions asked of each server in each mode")
	clients := fs.Int("clients", 8, "concurrent callers remembering the lines")
	starts := fs.Int("starts", 5, "times each server is started again to time its first answer")
	var sets setFlags
	fs.Var(&sets, "set", "override a config key on every server, as section.key=value (repeatable)")
	binary := fs.String("binary", "", "cairn binary to measure (default: this one); several, comma-separated, are measured side by side")
	drainTimeout := fs.Duration("drain-timeout", 30*time.Minute, "how long to wait for the background work to finish")
	keep := fs.Bool("keep", false, "leave the servers' home folders in place")
	asJSON := fs.Bool("json", false, "print the rows as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *data == "" {
		return usageError{"--data FILE is required: cairn " + benchCostsUsage}
	}
	if *n < 1 || *recalls < 1 || *clients < 1 || *starts < 1 {
		return usageError{"--n, --recalls, --clients and --starts must be at least 1"}
	}
	texts, err := readLines(*data, *n)
	if err != nil {
		return err
	}
	qs, err := costsQuestions(*questions, texts, *recalls)
	if err != nil {
		return err
	}
	bins := []string{""}
	if *binary != "" {
		bins = strings.Split(*binary, ",")
	}
	var servers []*costsServer
	defer func() {
		for _, s := range servers {
			s.close()
			_ = s.srv.Remove()
		}
	}()
	for _, bin := range bins {
		bin = strings.TrimSpace(bin)
		for _, cfg := range []benchRun{{name: "default"}, {name: "lean", set: ablationSets["bare"]}} {
			srv, err := bench.StartServer(ctx, bench.ServerOptions{Name: cfg.name, Binary: bin, Keep: *keep,
				Set: append(append([]string{}, sets...), cfg.set...)})
			if err != nil {
				return err
			}
			s := &costsServer{srv: srv, row: costsRow{Server: cfg.name, Binary: bin}, stop: make(chan struct{})}
			servers = append(servers, s)
			if err := srv.WaitEmbedderReady(ctx, time.Minute); err != nil {
				return err
			}
			if *keep {
				fmt.Fprintf(stderr, "bench: %s: home %s\n", cfg.name, srv.Home())
			}
		}
	}
	// Each server remembers the texts on its own (the others idle), so
	// that its CPU is its own work.
	for _, s := range servers {
		s.watchWAL()
		if err := s.ingest(ctx, texts, *clients, *drainTimeout, stderr); err != nil {
			return err
		}
	}
	// Questions in turn: each server answers the same question in each
	// mode before the next question, so the machine's noise falls on all.
	for _, q := range qs {
		for _, s := range servers {
			if err := s.ask(ctx, q); err != nil {
				return err
			}
		}
	}
	for _, s := range servers {
		s.row.DBBytes = s.srv.DatabaseBytes() - s.srv.WALBytes()
		s.row.WALBytes = s.srv.WALBytes()
		s.row.RSSBytes, _ = s.srv.RSS()
		s.close()
		s.row.WALMaxSeen = s.wal
		s.row.RecallP50MS, s.row.RecallP99MS = bench.MS(bench.Percentile(s.hyb, 0.5)), bench.MS(bench.Percentile(s.hyb, 0.99))
		s.row.KeywordP50MS, s.row.KeywordP99MS = bench.MS(bench.Percentile(s.kw, 0.5)), bench.MS(bench.Percentile(s.kw, 0.99))
	}
	for range *starts {
		for _, s := range servers {
			var method string
			d, err := s.srv.Respawn(ctx, func(ctx context.Context) error {
				res, err := s.srv.Client.Recall(ctx, core.RecallInput{Query: qs[0], Limit: 10, NoTracking: true})
				if err == nil {
					method = res.Method
				}
				return err
			})
			if err != nil {
				return err
			}
			s.firs = append(s.firs, d)
			s.row.FirstMethod = method
		}
	}
	rows := make([]costsRow, 0, len(servers))
	for _, s := range servers {
		s.row.FirstAnswerMS = bench.MS(bench.Percentile(s.firs, 0.5))
		s.row.FirstAnswerMax = bench.MS(slices.Max(s.firs))
		rows = append(rows, s.row)
	}
	if *asJSON {
		return printJSON(stdout, rows)
	}
	fmt.Fprintf(stdout, "costs at %d memories (%d remembering callers; %d questions, one caller; %d starts)\n", len(texts), *clients, len(qs), *starts)
	fmt.Fprintf(stdout, "%-8s %9s %9s %8s %15s %15s %8s %8s %9s %7s %15s %s\n", "server", "CPU ms/m", "(after)", "drain s",
		"recall p50/p99", "keyword p50/99", "DB MB", "WAL MB", "WAL max", "RSS MB", "first answer ms", "binary")
	mb := func(b int64) float64 { return float64(b) / (1 << 20) }
	for _, r := range rows {
		fmt.Fprintf(stdout, "%-8s %9.2f %9.2f %8.1f %7.2f/%-7.2f %7.2f/%-7.2f %8.1f %8.1f %9.1f %7.0f %7.0f (max %.0f) %s\n", r.Server, r.CPUMS, r.BackgroundCPUMS, r.DrainS,
			r.RecallP50MS, r.RecallP99MS, r.KeywordP50MS, r.KeywordP99MS, mb(r.DBBytes), mb(r.WALBytes), mb(r.WALMaxSeen), mb(r.RSSBytes),
			r.FirstAnswerMS, r.FirstAnswerMax, r.Binary)
	}
	for _, r := range rows {
		fmt.Fprintf(stdout, "%s: recall method %q, first answer's %q\n", r.Server, r.RecallMethod, r.FirstMethod)
	}
	return nil
}

// walSample is how often the WAL's size is looked at.
const walSample = 50 * time.Millisecond

// watchWAL notes the largest WAL until close.
func (s *costsServer) watchWAL() {
	s.wg.Go(func() {
		t := time.NewTicker(walSample)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
			w := s.srv.WALBytes()
			s.mu.Lock()
			s.wal = max(s.wal, w)
			s.mu.Unlock()
		}
	})
}

func (s *costsServer) close() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.wg.Wait()
}

// ingest remembers the texts and waits for the background work.
func (s *costsServer) ingest(ctx context.Context, texts []string, clients int, drain time.Duration, progress io.Writer) error {
	cpu0, _ := s.srv.CPU()
	load, err := bench.RememberTexts(ctx, s.srv.Client, texts, "bench", clients)
	if err != nil {
		return err
	}
	cpu1, _ := s.srv.CPU()
	t0 := time.Now()
	backlog, err := s.srv.Drain(ctx, drain, progress)
	if err != nil {
		return err
	}
	cpu2, _ := s.srv.CPU()
	m := float64(max(backlog.Memories, 1))
	s.row.Memories = backlog.Memories
	s.row.CPUMS = float64(cpu2-cpu0) / float64(time.Millisecond) / m
	s.row.BackgroundCPUMS = float64(cpu2-cpu1) / float64(time.Millisecond) / m
	s.row.DrainS = time.Since(t0).Seconds()
	fmt.Fprintf(progress, "bench: %s: %d remembered at %.0f/s, drained in %.1f s\n", s.row.Server, len(texts), load.Rate(), s.row.DrainS)
	return nil
}

// ask sends q in the API's default mode and keyword only.
func (s *costsServer) ask(ctx context.Context, q string) error {
	for _, mode := range []string{"", core.ModeKeyword} {
		t0 := time.Now()
		res, err := s.srv.Client.Recall(ctx, core.RecallInput{Query: q, Limit: 10, Mode: mode, NoTracking: true})
		d := time.Since(t0)
		if err != nil {
			return fmt.Errorf("%s: recall %q: %w", s.row.Server, q, err)
		}
		if mode == "" {
			s.hyb = append(s.hyb, d)
			s.row.RecallMethod = res.Method
		} else {
			s.kw = append(s.kw, d)
		}
	}
	return nil
}

// costsQuestions reads n questions from path or, without one, takes a
// few words from stored texts spread over the whole set.
func costsQuestions(path string, texts []string, n int) ([]string, error) {
	if path != "" {
		qs, err := readLines(path, n)
		if err != nil {
			return nil, err
		}
		return qs, nil
	}
	qs := make([]string, 0, n)
	for i := range n {
		w := strings.Fields(texts[i*len(texts)/n])
		qs = append(qs, strings.Join(w[min(2, len(w)/2):min(len(w), 8)], " "))
	}
	return qs, nil
}
