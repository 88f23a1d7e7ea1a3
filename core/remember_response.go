package core

// one memory.
type RememberResponse struct {
	*Memory
	Embedded bool `json:"embedded"`
	Deduped  bool `json:"deduped,omitempty"`
}

// ChunkedResponse is the API's answer to a remember that was split into
// chunks.
type ChunkedResponse struct {
	Chunked    bool     `json:"chunked"`
	ChunkCount int      `json:"chunk_count"`
	IDs        []string `json:"ids"`
	GroupID    string   `json:"group_id"`
}

// Response renders the result as the API returns it: a RememberResponse or
// a ChunkedResponse.
func (res *RememberResult) Response() any {
	if res.Chunked {
		return ChunkedResponse{Chunked: true, ChunkCount: len(res.IDs), IDs: res.IDs, GroupID: res.GroupID}
	}
	return RememberResponse{Memory: res.Memory, Embedded: res.Embedded, Deduped: res.Deduped}
}
