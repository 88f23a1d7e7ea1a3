package storage

import "context"

// Exact duplicates: live, not pinned, not manual_override memories of the
// same project (NULL and '' alike) with the same non-empty
// normalized_content. The unique live-hash index keeps the write path from
// making them within a project; rows written by other tools or older
// versions, or imported straight into the table, still can.

const dedupClusterSelect = `SELECT normalized_content, COALESCE(project, '') AS p, count(*) AS n
	FROM memories WHERE is_deleted = 0 AND pinned = 0 AND manual_override = 0 AND normalized_content != ''
	GROUP BY normalized_content, p HAVING n > 1`

// DedupCluster is a group of exact duplicates.
type DedupCluster struct {
	Normalized string
	Project    string
	Size       int
}

const dedupClusterStatsQuery = `SELECT count(*), COALESCE(sum(n - 1), 0) FROM (` + dedupClusterSelect + `)`

// DedupClusterStats counts duplicate clusters and the rows a
// deduplication would retire (all but one per cluster).
func DedupClusterStats(ctx context.Context, q Querier) (clusters, excess int, err error) {
	err = q.QueryRowContext(ctx, dedupClusterStatsQuery).Scan(&clusters, &excess)
	return
}

const dedupClustersQuery = dedupClusterSelect + ` ORDER BY min(rid) LIMIT ?`

// DedupClusters returns up to limit duplicate clusters, oldest first.
func DedupClusters(ctx context.Context, q Querier, limit int) ([]DedupCluster, error) {
	rows, err := q.QueryContext(ctx, dedupClustersQuery, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DedupCluster
	for rows.Next() {
		var c DedupCluster
		if err := rows.Scan(&c.Normalized, &c.Project, &c.Size); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

const dedupClusterMembersQuery = `SELECT ` + memoryColumns + ` FROM memories m
	WHERE m.is_deleted = 0 AND m.pinned = 0 AND m.manual_override = 0
	AND m.normalized_content = ? AND COALESCE(m.project, '') = ? ORDER BY m.created_at, m.rid`

// DedupClusterMembers returns the current rows of the cluster of
// normalized content in project, oldest first.
func DedupClusterMembers(ctx context.Context, q Querier, normalized, project string) ([]*Memory, error) {
	rows, err := q.QueryContext(ctx, dedupClusterMembersQuery, normalized, project)
	if err != nil {
		return nil, err
	}
	return collectMemories(rows)
}
