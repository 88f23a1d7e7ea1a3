package embedding

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/workers/embedding/uselite"
)

func TestNewNone(t *testing.T) {
	e, err := New(config.EmbeddingConfig{Provider: "none"})
	if err != nil || e != nil {
		t.Fatalf("New(none) = %v, %v; want nil, nil", e, err)
	}
}

func TestNewDefaults(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	cfg := config.DefaultConfig().Embedding

	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := e.(*Builtin)
	if !ok {
		t.Fatalf("default provider is %T, want *Builtin", e)
	}
	if b.Model() != uselite.ModelName || b.Dimensions() != 512 || b.batchSize != 16 {
		t.Errorf("builtin: model %q, dims %d, batch %d", b.Model(), b.Dimensions(), b.batchSize)
	}
	if b.model != nil {
		t.Errorf("New loaded the builtin model")
	}
	if e, err := New(config.EmbeddingConfig{}); err != nil || e.Model() != uselite.ModelName {
		t.Errorf("empty provider: %v, %v", e, err)
	}

	cfg.Provider = "ollama"
	e, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := e.(*Ollama)
	if o.Model() != "nomic-embed-text" || o.BaseURL() != "http://127.0.0.1:11434" || o.Dimensions() != 0 ||
		o.r.timeout != 30*time.Second || o.r.batchSize != 16 {
		t.Errorf("ollama: model %q, base %q, dims %d, timeout %v, batch %d", o.Model(), o.BaseURL(), o.Dimensions(), o.r.timeout, o.r.batchSize)
	}

	cfg.Provider = "openai"
	e, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	oa := e.(*OpenAI)
	if oa.Model() != "text-embedding-3-small" || oa.BaseURL() != "https://api.openai.com/v1" ||
		oa.r.Header.Get("Authorization") != "Bearer sk-from-env" {
		t.Errorf("openai: model %q, base %q", oa.Model(), oa.BaseURL())
	}
	if got := oa.r.Endpoint("/embeddings").String(); got != "https://api.openai.com/v1/embeddings" {
		t.Errorf("endpoint %s", got)
	}

	// Zero timeout and batch size get the defaults too; explicit settings win.
	e, err = New(config.EmbeddingConfig{Provider: "ollama", Model: "mxbai-embed-large", BaseURL: "http://gpu-box:11434/",
		Dimensions: 1024, Timeout: config.Duration(2 * time.Second), BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	o = e.(*Ollama)
	if o.Model() != "mxbai-embed-large" || o.BaseURL() != "http://gpu-box:11434" || o.Dimensions() != 1024 ||
		o.r.timeout != 2*time.Second || o.r.batchSize != 64 {
		t.Errorf("explicit: model %q, base %q, dims %d, timeout %v, batch %d", o.Model(), o.BaseURL(), o.Dimensions(), o.r.timeout, o.r.batchSize)
	}
	e, _ = New(config.EmbeddingConfig{Provider: "ollama"})
	if o := e.(*Ollama); o.r.timeout != config.DefaultEmbeddingTimeout || o.r.batchSize != config.DefaultEmbeddingBatchSize {
		t.Errorf("zero config: timeout %v, batch %d", o.r.timeout, o.r.batchSize)
	}
}

func TestNewOpenAIKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	_, err := New(config.EmbeddingConfig{Provider: "openai"})
	wantErr(t, err, "embedding.api_key", "required for api.openai.com", "OPENAI_API_KEY")
	var ce *config.ConfigError
	if !errors.As(err, &ce) {
		t.Errorf("error %T is not a *core.ConfigError", err)
	}
	_, err = New(config.EmbeddingConfig{Provider: "openai", BaseURL: "https://API.OpenAI.com/v1/"})
	wantErr(t, err, "embedding.api_key")

	for _, base := range []string{"http://127.0.0.1:8080/v1", "http://localhost:1234/v1", "https://vllm.internal.example/v1"} {
		if _, err := New(config.EmbeddingConfig{Provider: "openai", BaseURL: base}); err != nil {
			t.Errorf("%s without a key: %v", base, err)
		}
	}
	e, err := New(config.EmbeddingConfig{Provider: "openai", APIKey: "sk-in-config"})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.(*OpenAI).r.Header.Get("Authorization"); got != "Bearer sk-in-config" {
		t.Errorf("Authorization %q", got)
	}
}

func TestNewInvalid(t *testing.T) {
	for _, tc := range []struct {
		cfg  config.EmbeddingConfig
		want string
	}{
		{config.EmbeddingConfig{Provider: "cohere"}, "embedding.provider"},
		{config.EmbeddingConfig{Provider: "ollama", BaseURL: "localhost:11434"}, "embedding.base_url"},
		{config.EmbeddingConfig{Provider: "ollama", BaseURL: "127.0.0.1:11434"}, "embedding.base_url"},
		{config.EmbeddingConfig{Provider: "ollama", BaseURL: "ftp://host"}, "embedding.base_url"},
		{config.EmbeddingConfig{Provider: "ollama", BaseURL: "http://"}, "embedding.base_url"},
		{config.EmbeddingConfig{Provider: "ollama", BaseURL: "/api"}, "embedding.base_url"},
		{config.EmbeddingConfig{Provider: "openai", APIKey: "k", BaseURL: "http://h/v1?x=1"}, "embedding.base_url"},
		{config.EmbeddingConfig{Provider: "openai", APIKey: "k", BaseURL: "http://h:port/v1"}, "embedding.base_url"},
		{config.EmbeddingConfig{Provider: "builtin", Model: "all-minilm"}, "embedding.model"},
		{config.EmbeddingConfig{Provider: "builtin", Dimensions: 768}, "embedding.dimensions"},
		{config.EmbeddingConfig{Provider: "ollama", Dimensions: -1}, "embedding.dimensions"},
	} {
		e, err := New(tc.cfg)
		if err == nil {
			t.Errorf("New(%+v) = %v, want an error", tc.cfg, e)
			continue
		}
		wantErr(t, err, tc.want)
	}
	// The builtin model may be named explicitly.
	if _, err := New(config.EmbeddingConfig{Provider: "builtin", Model: uselite.ModelName, Dimensions: 512}); err != nil {
		t.Error(err)
	}
}

func TestErrorRedactsPassword(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	base := deadURL(t)
	o, err := NewOllama(config.EmbeddingConfig{BaseURL: "http://user:hunter2@" + base[len("http://"):]})
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.Embed(t.Context(), []string{"x"})
	wantErr(t, err, "not reachable")
	if e := err.Error(); strings.Contains(e, "hunter2") {
		t.Errorf("error leaks the password: %s", e)
	}
	if strings.Contains(o.BaseURL(), "hunter2") {
		t.Errorf("BaseURL leaks the password: %s", o.BaseURL())
	}
}
