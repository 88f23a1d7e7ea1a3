package config

// GraphConfig configures the knowledge graph: the inline entity linker that
// records, in the write transaction, the entities each memory names, and
// the graph boost of recall.
type GraphConfig struct {
	// Enabled turns the graph on: the linker writes entities and mentions,
	// the extraction pipeline records its relations, and recall applies the
	// graph boost and hub dampening. Off, no graph is written or read.
	Enabled bool `toml:"enabled"`
	// BoostWeight is the largest lift the graph gives a recall candidate
	// that mentions an entity the query names; each entity's share is
	// scaled by its rarity (none for an entity half the memories mention),
	// and an entity one relation away counts half. 0 turns the boost off.
	BoostWeight float64 `toml:"boost_weight" range:"0,1"`
	// BoostTimeout bounds the boost's lookups; past it recall goes on
	// without the boost.
	BoostTimeout Duration `toml:"boost_timeout" range:"1ms,5s"`
}

// DefaultGraphConfig is the graph section of DefaultConfig.
func DefaultGraphConfig() GraphConfig {
	return GraphConfig{
		Enabled:      DefaultGraphEnabled,
		BoostWeight:  DefaultGraphBoostWeight,
		BoostTimeout: Duration(DefaultGraphBoostTimeout),
	}
}
