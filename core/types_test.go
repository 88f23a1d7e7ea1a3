package core

import (
	"strings"
	"testing"
)

func TestCheckType(t *testing.T) {
	for _, c := range []struct {
		in, want string // want: "" for accepted, else a part of the error
	}{
		{"", ""},
		{"fact", ""},
		{" decision ", ""},
		{"decison", `did you mean "decision"`},
		{"prefrence", `did you mean "preference"`},
		{"Fact", `did you mean "fact"`},
		{"proc", `did you mean "procedural"`},
		{"zebra", `unknown type "zebra" (known: fact,`},
	} {
		err := CheckType("type", c.in)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckType(%q) = %v", c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckType(%q) = %v, want %q", c.in, err, c.want)
		case c.want != "" && err.(*Error).Extra["field"] != "type":
			t.Errorf("CheckType(%q) names no field: %v", c.in, err)
		}
	}
}
