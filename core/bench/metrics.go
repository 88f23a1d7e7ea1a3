package bench

import (
	"math"
	"sort"
	"time"
)

// Scores are one question's figures, each a fraction in [0,1].
type Scores struct {
	R1, R5, R10, Hit, MRR, NDCG float64
}

// ScoreRanking scores ranked dia ids (best first; only the first k count)
// against the evidence ids.
func ScoreRanking(ranked, evidence []string, k int) Scores {
	if len(ranked) > k {
		ranked = ranked[:k]
	}
	return Scores{
		R1:   RecallAt(ranked, evidence, 1),
		R5:   RecallAt(ranked, evidence, 5),
		R10:  RecallAt(ranked, evidence, 10),
		Hit:  HitAt(ranked, evidence, k),
		MRR:  ReciprocalRank(ranked, evidence, k),
		NDCG: NDCGAt(ranked, evidence, 10),
	}
}

func evidenceSet(evidence []string) map[string]bool {
	set := make(map[string]bool, len(evidence))
	for _, e := range evidence {
		set[e] = true
	}
	return set
}

// RecallAt is |evidence ∩ top-k| / |evidence|.
func RecallAt(ranked, evidence []string, k int) float64 {
	set := evidenceSet(evidence)
	if len(set) == 0 {
		return 0
	}
	found := 0
	for i, r := range ranked {
		if i >= k {
			break
		}
		if set[r] {
			found++
			delete(set, r) // count each evidence id once
		}
	}
	return float64(found) / float64(len(evidenceSet(evidence)))
}

// HitAt is 1 when any evidence id is in the top k.
func HitAt(ranked, evidence []string, k int) float64 {
	if ReciprocalRank(ranked, evidence, k) > 0 {
		return 1
	}
	return 0
}

// ReciprocalRank is 1/rank of the first evidence id within the top k, else 0.
func ReciprocalRank(ranked, evidence []string, k int) float64 {
	set := evidenceSet(evidence)
	for i, r := range ranked {
		if i >= k {
			break
		}
		if set[r] {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// NDCGAt is binary-relevance nDCG over the top k, the ideal ranking putting
// min(|evidence|, k) relevant ids first.
func NDCGAt(ranked, evidence []string, k int) float64 {
	set := evidenceSet(evidence)
	if len(set) == 0 {
		return 0
	}
	var dcg, ideal float64
	for i, r := range ranked {
		if i >= k {
			break
		}
		if set[r] {
			dcg += 1 / math.Log2(float64(i+2))
			delete(set, r)
		}
	}
	for i := 0; i < min(len(evidenceSet(evidence)), k); i++ {
		ideal += 1 / math.Log2(float64(i+2))
	}
	return dcg / ideal
}

// Percentile is the nearest-rank p-quantile (p in [0,1]) of d; 0 for none.
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// MS renders d as milliseconds with two decimals.
func MS(d time.Duration) float64 { return math.Round(float64(d.Microseconds())/10) / 100 }
