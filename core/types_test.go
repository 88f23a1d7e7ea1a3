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
		err := CheckType("type", c.in, nil)
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

// memory.extra_types widens the set: an extra type is accepted, and a typo
// of it is answered with it.
func TestCheckTypeWithExtraTypes(t *testing.T) {
	known := Types([]string{"incident", " runbook ", "fact", ""})
	if strings.Join(known, ",") != strings.Join(KnownTypes, ",")+",incident,runbook" {
		t.Fatalf("Types: %v", known)
	}
	if err := CheckType("type", "incident", nil); err == nil {
		t.Fatal("incident accepted without memory.extra_types")
	}
	if err := CheckType("type", "incident", known); err != nil {
		t.Fatalf("incident refused with memory.extra_types: %v", err)
	}
	if err := CheckType("type", "incidnet", known); err == nil || !strings.Contains(err.Error(), `did you mean "incident"`) {
		t.Fatalf("typo of an extra type: %v", err)
	}
}
