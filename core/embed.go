package core

import "context"

// Embedder turns texts into vectors. Implementations live in
// workers/embedding (the built-in offline model, Ollama, OpenAI-compatible
// servers); core only calls them, and never inside a write transaction.
type Embedder interface {
	// Embed returns one vector per text, in order. Vectors need not be
	// normalized; core normalizes before storing.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the model; it is stored with every vector so a change of
	// model is detected and re-embedded.
	Model() string
	// Dimensions is the vector length, or 0 when not known until the first
	// call.
	Dimensions() int
}
