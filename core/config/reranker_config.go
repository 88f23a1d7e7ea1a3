package config

// RerankerConfig configures the optional model reranker of recall
// (docs/design/search.md, "Reranking"): after fusion, the best TopN
// candidates go to a reranking model, which reorders them; past Timeout,
// or on any error, recall keeps its own order. Off by default.
type RerankerConfig struct {
	Enabled bool `toml:"enabled"`
	// Provider is "http" (a /rerank endpoint in the Jina/Cohere form, which
	// llama.cpp's server, text-embeddings-inference, vLLM and the hosted
	// services speak) or "llm" (the pipeline's LLM provider asked to score
	// each candidate: slower, for when no reranking model runs).
	Provider string `toml:"provider" oneof:"http,llm"`
	// URL of the rerank endpoint (provider http), e.g.
	// http://127.0.0.1:8012/v1/rerank.
	URL string `toml:"url"`
	// Model names the reranking model where the endpoint serves several.
	Model string `toml:"model"`
	// APIKey is sent as a bearer token; empty reads CAIRN_RERANKER_KEY.
	APIKey string `toml:"api_key"`
	// TopN is how many of the best candidates are reranked; the rest keep
	// their order after them.
	TopN int `toml:"top_n" range:"1,100"`
	// Timeout bounds one reranking; past it recall answers in its own order.
	Timeout Duration `toml:"timeout" range:"100ms,30s"`
}

// DefaultRerankerConfig is the reranker section of DefaultConfig.
func DefaultRerankerConfig() RerankerConfig {
	return RerankerConfig{
		Enabled:  DefaultRerankerEnabled,
		Provider: DefaultRerankerProvider,
		TopN:     DefaultRerankerTopN,
		Timeout:  Duration(DefaultRerankerTimeout),
	}
}
