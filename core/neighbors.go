package core

// Session neighbours. A conversation's turns answer one another: a reply
// ("Three times a week; it keeps us on track.") is about what the turn
// before it asked, and a question is answered by the turn after it. When
// the memory next to a candidate in its session (the one stated just
// before it, or just after) scores higher, the candidate is pulled toward
// that score:
//
//	score + w·(neighbour − score)       w = search.neighbor_weight
//
// It only lifts, and only candidates (a neighbour the legs did not find
// lifts nothing and is not added): it reorders what the legs found by what
// surrounds it.

// neighborLift sets each candidate's neighbor: what the better of its
// session neighbours among the candidates adds to its rel score.
func neighborLift(cands map[string]*candidate, w float64) {
	if w <= 0 {
		return
	}
	// next[id] is the candidate stated just after the memory id.
	next := map[string]*candidate{}
	for _, c := range cands {
		if c.mem != nil && c.prevID != "" {
			next[c.prevID] = c
		}
	}
	for _, c := range cands {
		if c.mem == nil {
			continue
		}
		best := c.rel
		if p, ok := cands[c.prevID]; ok && p.mem != nil && c.prevID != "" {
			best = max(best, p.rel)
		}
		if n, ok := next[c.id]; ok {
			best = max(best, n.rel)
		}
		c.neighbor = w * (best - c.rel)
	}
}
