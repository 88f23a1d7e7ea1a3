package vectors

import (
	"context"
	"time"

	"github.com/cairnmem/cairn/storage"
)

// followEvery is how often FollowShared reads the rows the change feed
// gathered: a vector written through another server is found within it
// and the feed's own delay (docs/design/postgres.md).
const followEvery = 200 * time.Millisecond

// FollowShared keeps the index in step with every server's commits on a
// store shared by several (PostgreSQL): the memories rows the change
// feed reports are synced as SyncVectors syncs this process's own
// writes. It starts following now (call it before the index loads, so a
// commit during the load is not missed) and returns the loop, to run
// until its ctx ends. On SQLite the loop returns at once: the one
// process writing the store syncs its writes itself.
func (v *Vectors) FollowShared() func(context.Context) {
	if v.embedder == nil || !v.db.Postgres() {
		return func(context.Context) {}
	}
	v.db.TakeSharedChanges() // starts the feed; the load reads what came before
	return v.follow
}

func (v *Vectors) follow(ctx context.Context) {
	t := time.NewTicker(followEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if v.ix.Load() == nil {
			continue // the changes wait for the loaded index
		}
		rids := v.db.TakeSharedChanges()
		if len(rids) == 0 {
			continue
		}
		ms, err := storage.MemoriesByRID(ctx, v.db.Reader(), rids, storage.MemoryFilter{IncludeDeleted: true})
		if err != nil {
			v.log.Warn("vector index: follow the change feed", "err", err)
			continue
		}
		ids := make([]string, 0, len(ms))
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
		v.SyncVectors(ctx, ids...)
	}
}
