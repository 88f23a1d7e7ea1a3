package config

// ConnectorsConfig configures the connectors (docs/design/pipeline.md,
// "Connectors"): sources cairn keeps in step with. A filesystem connector reads only a folder listed in
// Roots: the API is reachable by every local process, so it never reads a
// folder a request names that the user did not list here.
type ConnectorsConfig struct {
	// Roots are the folders filesystem connectors may read; each gets a
	// connector of its own when cairn starts. "~/" is the home folder.
	Roots []string `toml:"roots"`
	// PollInterval is how often cairn looks for changed files while it runs.
	PollInterval Duration `toml:"poll_interval" range:"1s,24h"`
	// MaxFileBytes skips larger files.
	MaxFileBytes int64 `toml:"max_file_bytes" range:"1,10485760"`
	// MaxFiles bounds the files one connector reads; past it the sync
	// stops with an error saying so.
	MaxFiles int `toml:"max_files" range:"1,1000000"`
}

// DefaultConnectorsConfig is the connectors section of DefaultConfig.
func DefaultConnectorsConfig() ConnectorsConfig {
	return ConnectorsConfig{
		PollInterval: Duration(DefaultConnectorsPollInterval),
		MaxFileBytes: DefaultConnectorsMaxFileBytes,
		MaxFiles:     DefaultConnectorsMaxFiles,
	}
}
