package jobs

// Job types.
const (
	Extract = "extract"
	// SessionExtract extracts facts from a session's transcript (queued
	// by the session-end hook). Its proposals name "session:<key>" as their
	// source.
	SessionExtract = "session_extract"
)

// ExtractTypes are the job types ProcessExtractJob runs.
var ExtractTypes = []string{Extract, SessionExtract}

// ProspectiveIndex has the pipeline's model write a memory's hints
// (hints.llm).
const ProspectiveIndex = "prospective_index"

// SessionScore has the pipeline's model score how useful a session's
// injected memories were (continuity scoring).
const SessionScore = "session_score"

// StructuralClassify has the pipeline's model file an entity's
// memories under its aspects (pipeline/classify_job.go).
const StructuralClassify = "structural_classify"

// PipelineTypes are the jobs the pipeline worker leases.
var PipelineTypes = []string{Extract, SessionExtract, ProspectiveIndex, SessionScore, StructuralClassify}
