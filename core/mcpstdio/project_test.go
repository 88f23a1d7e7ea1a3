package mcpstdio

import (
	"encoding/json"
	"testing"
)

// TestWithDefaultProject: the MCP proxy adds the agent's project to a
// memory_store call that names none, and leaves every other call as sent.
func TestWithDefaultProject(t *testing.T) {
	for _, tc := range []struct {
		args, current string
		want          string
	}{
		{`{"content":"x"}`, "/home/dev/atlas", `{"content":"x","project":"/home/dev/atlas"}`},
		{`{"content":"x","project":"notes"}`, "/home/dev/atlas", `{"content":"x","project":"notes"}`},
		{`{"content":"x","project":"  "}`, "/home/dev/atlas", `{"content":"x","project":"/home/dev/atlas"}`},
		{``, "/home/dev/atlas", `{"project":"/home/dev/atlas"}`},
		{`{"content":"x"}`, "", `{"content":"x"}`},
		{`[1,2]`, "/home/dev/atlas", `[1,2]`},
	} {
		got, err := json.Marshal(withDefaultProject(json.RawMessage(tc.args), tc.current))
		if err != nil || string(got) != tc.want {
			t.Errorf("withDefaultProject(%s, %q) = %s, %v; want %s", tc.args, tc.current, got, err, tc.want)
		}
	}
}
