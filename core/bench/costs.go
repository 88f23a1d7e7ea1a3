package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core"
)

// CostsRow is what one server configuration costs its user.
type CostsRow struct {
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
	srv  *Server
	row  CostsRow
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	wal  int64
	hyb  []time.Duration
	kw   []time.Duration
	firs []time.Duration
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
	load, err := RememberTexts(ctx, s.srv.Client, texts, "bench", clients)
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

// CostsQuestions reads n questions from path or, without one, takes a
// few words from stored texts spread over the whole set.
func CostsQuestions(path string, texts []string, n int) ([]string, error) {
	if path != "" {
		qs, err := ReadLines(path, n)
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

// CostsConfig is one server configuration Costs measures.
type CostsConfig struct {
	Name string
	Set  []string // section.key=value, on top of CostsOptions.Sets
}

// CostsOptions say what Costs measures and with what.
type CostsOptions struct {
	Texts     []string // remembered by every server
	Questions []string // asked of every server in turn
	Clients   int      // concurrent callers remembering
	Starts    int      // times each server is started again to time its first answer
	Binaries  []string // cairn binaries ("" is this one), each run in every configuration
	Configs   []CostsConfig
	Sets      []string // section.key=value on every server
	Keep      bool     // leave the servers' homes in place
	// DrainTimeout bounds the wait for the background work after the
	// texts are remembered.
	DrainTimeout time.Duration
	Progress     io.Writer
}

// Costs is what `cairn bench costs` measures: what a user pays for cairn,
// each figure through the API as users call it, every configuration of
// every binary side by side in the same run. Each server remembers the
// same texts on its own and drains its background work; then the
// questions are asked of all in turn, one at a time, and each is stopped
// and started again in turn to time a start to its first answer.
func Costs(ctx context.Context, o CostsOptions) ([]CostsRow, error) {
	var servers []*costsServer
	defer func() {
		for _, s := range servers {
			s.close()
			_ = s.srv.Remove()
		}
	}()
	for _, bin := range o.Binaries {
		bin = strings.TrimSpace(bin)
		for _, cfg := range o.Configs {
			srv, err := StartServer(ctx, ServerOptions{Name: cfg.Name, Binary: bin, Keep: o.Keep,
				Set: append(append([]string{}, o.Sets...), cfg.Set...)})
			if err != nil {
				return nil, err
			}
			s := &costsServer{srv: srv, row: CostsRow{Server: cfg.Name, Binary: bin}, stop: make(chan struct{})}
			servers = append(servers, s)
			if err := srv.WaitEmbedderReady(ctx, time.Minute); err != nil {
				return nil, err
			}
			if o.Keep {
				fmt.Fprintf(o.Progress, "bench: %s: home %s\n", cfg.Name, srv.Home())
			}
		}
	}
	// Each server remembers the texts on its own (the others idle), so
	// that its CPU is its own work.
	for _, s := range servers {
		s.watchWAL()
		if err := s.ingest(ctx, o.Texts, o.Clients, o.DrainTimeout, o.Progress); err != nil {
			return nil, err
		}
	}
	// Questions in turn: each server answers the same question in each
	// mode before the next question, so the machine's noise falls on all.
	for _, q := range o.Questions {
		for _, s := range servers {
			if err := s.ask(ctx, q); err != nil {
				return nil, err
			}
		}
	}
	for _, s := range servers {
		s.row.DBBytes = s.srv.DatabaseBytes() - s.srv.WALBytes()
		s.row.WALBytes = s.srv.WALBytes()
		s.row.RSSBytes, _ = s.srv.RSS()
		s.close()
		s.row.WALMaxSeen = s.wal
		s.row.RecallP50MS, s.row.RecallP99MS = MS(Percentile(s.hyb, 0.5)), MS(Percentile(s.hyb, 0.99))
		s.row.KeywordP50MS, s.row.KeywordP99MS = MS(Percentile(s.kw, 0.5)), MS(Percentile(s.kw, 0.99))
	}
	for range o.Starts {
		for _, s := range servers {
			var method string
			d, err := s.srv.Respawn(ctx, func(ctx context.Context) error {
				res, err := s.srv.Client.Recall(ctx, core.RecallInput{Query: o.Questions[0], Limit: 10, NoTracking: true})
				if err == nil {
					method = res.Method
				}
				return err
			})
			if err != nil {
				return nil, err
			}
			s.firs = append(s.firs, d)
			s.row.FirstMethod = method
		}
	}
	rows := make([]CostsRow, 0, len(servers))
	for _, s := range servers {
		s.row.FirstAnswerMS = MS(Percentile(s.firs, 0.5))
		s.row.FirstAnswerMax = MS(slices.Max(s.firs))
		rows = append(rows, s.row)
	}
	return rows, nil
}
