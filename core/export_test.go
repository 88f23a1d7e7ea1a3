package core

import "github.com/cairnmem/cairn/core/keyword"

// KeywordIndexStats describes s's in-memory keyword index (zero before
// its first build), for the tests.
func KeywordIndexStats(s *Service) keyword.Stats { return s.keyword.stats() }
