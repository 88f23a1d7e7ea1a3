package storage

import (
	"context"
	"hash/maphash"
	"sort"

	"github.com/cairnmem/cairn/storage/dialect"
)

// Exact duplicates: live, not pinned, not manual_override memories of the
// same project (NULL and '' alike) with the same non-empty normalized
// content. The unique live-hash index keeps the write path from making
// them within a project; rows written by other tools or older versions,
// or imported straight into the table, still can. The normalized form is
// not stored (it is derived from content): the caller passes the
// function that derives it (text.NormalizeContent), and the clusters are
// found by one scan of the live rows.

// Normalizer maps content to the form exact duplicates share.
type Normalizer func(content string) string

// DedupCluster is a group of exact duplicates; RIDs are its rows when it
// was found.
type DedupCluster struct {
	Normalized string
	Project    string
	Size       int
	RIDs       []int64
}

const dedupCandidatesQuery = `SELECT rid, content, COALESCE(project, '') FROM memories
	WHERE is_deleted = 0 AND pinned = 0 AND manual_override = 0 ORDER BY rid`

// dedupClusters returns every duplicate cluster, oldest first (by the
// smallest rid).
func dedupClusters(ctx context.Context, q Querier, norm Normalizer) ([]DedupCluster, error) {
	rows, err := q.QueryContext(ctx, dedupCandidatesQuery)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	// Grouped by a 64-bit hash of the normalized form (a collision among
	// 100k rows has odds of about 1e-9, and the members are checked
	// against the form itself before any merge: DedupClusterMembers).
	seed := maphash.MakeSeed()
	type key struct {
		sum     uint64
		project string
	}
	byKey := map[key]int{} // index into groups
	var groups []DedupCluster
	for rows.Next() {
		var rid int64
		var content, project string
		if err := rows.Scan(&rid, &content, &project); err != nil {
			return nil, err
		}
		n := norm(content)
		if n == "" {
			continue
		}
		k := key{maphash.String(seed, n), project}
		i, ok := byKey[k]
		if !ok {
			i = len(groups)
			byKey[k] = i
			groups = append(groups, DedupCluster{Normalized: n, Project: project})
		}
		groups[i].Size++
		groups[i].RIDs = append(groups[i].RIDs, rid)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []DedupCluster
	for _, g := range groups {
		if g.Size > 1 {
			out = append(out, g)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].RIDs[0] < out[j].RIDs[0] })
	return out, nil
}

// DedupClusterStats counts duplicate clusters and the rows a
// deduplication would retire (all but one per cluster).
func DedupClusterStats(ctx context.Context, q Querier, norm Normalizer) (clusters, excess int, err error) {
	cs, err := dedupClusters(ctx, q, norm)
	for _, c := range cs {
		clusters++
		excess += c.Size - 1
	}
	return clusters, excess, err
}

// DedupClusters returns up to limit duplicate clusters, oldest first.
func DedupClusters(ctx context.Context, q Querier, norm Normalizer, limit int) ([]DedupCluster, error) {
	cs, err := dedupClusters(ctx, q, norm)
	if len(cs) > limit {
		cs = cs[:limit]
	}
	return cs, err
}

var dedupClusterMembersQuery = dialect.SQL(`SELECT `+memoryColumns+` FROM memories m
	WHERE m.rid IN (%s) AND m.is_deleted = 0 AND m.pinned = 0 AND m.manual_override = 0
	AND COALESCE(m.project, '') = ? ORDER BY m.created_at, m.rid`, intList)

// DedupClusterMembers returns the rows of cluster c that are still in it
// (live, not pinned, not manual_override, same project and normalized
// content), oldest first.
func DedupClusterMembers(ctx context.Context, q Querier, norm Normalizer, c DedupCluster) ([]*Memory, error) {
	rows, err := q.QueryContext(ctx, dedupClusterMembersQuery.For(q), jsonList(c.RIDs), c.Project)
	if err != nil {
		return nil, err
	}
	ms, err := collectMemories(rows)
	if err != nil {
		return nil, err
	}
	out := ms[:0]
	for _, m := range ms {
		if norm(m.Content) == c.Normalized {
			out = append(out, m)
		}
	}
	return out, nil
}
