package text_test

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/text"
)

// The attacks of issue 29, as a terminal would receive them.
func TestDisplayRemovesEscapeSequences(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "deploy with make ship", "deploy with make ship"},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"unicode kept", "café ✓ 日本語 👩‍💻 עברית", "café ✓ 日本語 👩‍💻 עברית"},
		{"OSC 52 clipboard, BEL", "before\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07after", "beforeafter"},
		{"OSC 52 clipboard, ST", "before\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x1b\\after", "beforeafter"},
		{"OSC 0 title", "\x1b]0;you have been pwned\x07memory", "memory"},
		{"OSC 2 title, C1 ST", "\x1b]2;title\u009cmemory", "memory"},
		{"OSC 8 hyperlink", "see \x1b]8;;https://evil.example/\x1b\\docs.example.com\x1b]8;;\x1b\\ now", "see docs.example.com now"},
		{"CSI 2J clear", "\x1b[2J\x1b[Hfake prompt $ ", "fake prompt $ "},
		{"SGR colour", "\x1b[1;31mred\x1b[0m text", "red text"},
		{"SGR 38;2 truecolour", "\x1b[38;2;255;0;0mx\x1b[m", "x"},
		{"CSI private mode", "\x1b[?1049h\x1b[?25lhidden cursor", "hidden cursor"},
		{"CSI with intermediate", "\x1b[0 qcursor", "cursor"},
		{"DCS", "a\x1bP1$r0m\x1b\\b", "ab"},
		{"DCS tmux passthrough", "\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\x", "x"},
		{"SOS PM APC", "1\x1bXsos\x1b\\2\x1b^pm\x1b\\3\x1b_apc\x1b\\4", "1234"},
		{"C1 CSI 8-bit raw", "a\x9b2Jb", "ab"},
		{"C1 CSI as U+009B", "a\u009b2Jb", "ab"},
		{"C1 OSC raw, BEL", "a\x9d0;title\x07b", "ab"},
		{"C1 OSC as U+009D, C1 ST", "a\u009d52;c;eA==\u009cb", "ab"},
		{"C1 DCS raw, raw ST", "a\x90q#0;2;0;0;0\x9cb", "ab"},
		{"NUL", "a\x00b", "ab"},
		{"BEL", "ding\x07dong", "dingdong"},
		{"backspace overprint", "rm -rf /\b\b\b\b\b\b\b\bls     ", "rm -rf /ls     "},
		{"carriage return overprint", "safe text\rEVIL", "safe textEVIL"},
		{"CRLF", "line one\r\nline two", "line one\nline two"},
		{"DEL and VT FF", "a\x7fb\x0bc\x0cd", "abcd"},
		{"C1 NEL", "a\u0085b", "ab"},
		{"RIS full reset", "\x1bcreset", "reset"},
		{"DECALN", "\x1b#8x", "x"},
		{"charset", "\x1b(0lqk\x1b(B", "lqk"},
		{"lone ESC at end", "tail\x1b", "tail"},
		{"lone ESC, then ESC b", "a\x1b\x1bb", "a"},
		{"ESC before unicode", "a\x1bébc", "aébc"},
		{"unterminated OSC ends its line", "a\x1b]0;title\nnext line", "a\nnext line"},
		{"unterminated OSC at the end", "a\x1b]52;c;AAAA", "a"},
		{"OSC ended by CAN", "a\x1b]0;t\x18b", "ab"},
		{"OSC ended by another ESC", "a\x1b]0;t\x1b[31mb", "ab"},
		{"malformed CSI", "a\x1b[12\x01b", "ab"},
		{"CSI cut by newline", "a\x1b[1\n2Jb", "a\n2Jb"},
		{"invalid UTF-8", "a\xffb\xe2\x28", "a\uFFFDb\uFFFD("},
		{"bidi override dropped", "access \u202elevel\u202c granted", "access level granted"},
		{"bidi isolate dropped", "x\u2066y\u2069z", "xyz"},
		{"bidi marks kept", "a\u200fb", "a\u200fb"},
		{"tag characters dropped", "hello\U000E0049\U000E0047\U000E004E\U000E004F\U000E0052\U000E0045", "hello"},
		{"entity-decoded OSC 52", "page \x1b]52;c;ZWNobyBwd25lZA==\x07 text", "page  text"},
		{"one variation selector kept", "I \u2764\ufe0f it", "I \u2764\ufe0f it"},
		{"a run of variation selectors dropped", "hi\U0001F600\ufe0f\U000E0101\U000E0142\ufe01 there", "hi\U0001F600\ufe0f there"},
	} {
		got := text.Display(tc.in)
		if got != tc.want {
			t.Errorf("%s: Display(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
		if again := text.Display(got); again != got {
			t.Errorf("%s: not idempotent: %q then %q", tc.name, got, again)
		}
	}
}

func TestDisplayLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"alpha", "alpha"},
		{"alpha\u200b", "alpha<U+200B>"},
		{"\u202ealpha", "<U+202E>alpha"},
		{"ａｌｐｈａ", "ａｌｐｈａ"}, // full width is visibly different
		{"a\nb\tc", "a b c"},
		{"a\u2028b", "a b"},
		{"so\u00adft", "so<U+00AD>ft"},
		{"\ufeffbom", "<U+FEFF>bom"},
		{"tag\x1b]0;pwned\x07", "tag"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"👩‍💻", "👩‍💻"}, // an emoji's joiner is part of it
		{"a\u200db", "a<U+200D>b"},
		{"x\U000E0041", "x<U+E0041>"},
	} {
		got := text.DisplayLine(tc.in)
		if got != tc.want {
			t.Errorf("DisplayLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if again := text.DisplayLine(got); again != got {
			t.Errorf("DisplayLine not idempotent: %q then %q", got, again)
		}
	}
}

func TestCleanLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"  Release   notes\n\t2024  ", "Release notes 2024"},
		{"\x1b]0;pwned\x07Docs &amp; more", "Docs &amp; more"},
		{"title\x1b]52;c;eA==\x07 here", "title here"},
		{"a \x01 b", "a b"},
		{"a\u200b\u202eb", "ab"},
		{"a\u00a0\u3000b", "a b"},
		{"  ", ""},
		{"👩‍💻 dev", "👩‍💻 dev"},
		{"x\u2029y", "x y"},
	} {
		got := text.CleanLine(tc.in)
		if got != tc.want {
			t.Errorf("CleanLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if err := text.CheckIdentifier("title", got); err != nil {
			t.Errorf("CleanLine(%q) = %q does not pass CheckIdentifier: %v", tc.in, got, err)
		}
	}
}

func TestCheckIdentifier(t *testing.T) {
	for _, ok := range []string{"", "deploy", "team:infra", "Dana Smith", "claude-code", "日本語", "👩‍💻", "café", "a b"} {
		if err := text.CheckIdentifier("tags", ok); err != nil {
			t.Errorf("CheckIdentifier(%q) = %v, want ok", ok, err)
		}
	}
	for _, tc := range []struct{ field, in, says string }{
		{"tags", "ta\x1b]0;x\x07g", "U+001B (escape) at byte 2"},
		{"type", "fact\x00", "U+0000 (NUL)"},
		{"who", "dana\u009b2J", "U+009B (C1 CSI)"},
		{"source_id", "id\nline", "line feed"},
		{"session_id", "s\tid", "tab"},
		{"project", "alpha\u200b", "zero-width space"},
		{"project", "\u202ealpha", "right-to-left override"},
		{"tags", "a\u200db", "zero-width joiner"},
		{"tags", "x\U000E0041", "tag character"},
		{"tags", "\xff", "valid UTF-8"},
		{"who", "a\u2028b", "line separator"},
		{"who", "a\x7f", "delete"},
		{"tags", "x\ufe0f\ufe0f", "variation selector"},
	} {
		err := text.CheckIdentifier(tc.field, tc.in)
		var fe *text.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.HasPrefix(err.Error(), tc.field+" must") || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("CheckIdentifier(%q, %q) = %v, want a %s error saying %q", tc.field, tc.in, err, tc.field, tc.says)
		}
	}
	if err := text.CheckIdentifiers("tags", []string{"ok", "b\x07ad"}); err == nil || !strings.Contains(err.Error(), "bell") {
		t.Errorf("CheckIdentifiers: %v", err)
	}
}

// Text with nothing to remove is returned as it is, without a copy.
func TestDisplayKeepsCleanTextAllocationFree(t *testing.T) {
	s := strings.Repeat("An ordinary memory about the deploy, with ünïcödé and 👩‍💻.\n", 50)
	if n := testing.AllocsPerRun(100, func() { _ = text.Display(s) }); n != 0 {
		t.Errorf("Display of clean text allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = text.DisplayLine("team:infra") }); n != 0 {
		t.Errorf("DisplayLine of a clean tag allocates %v times", n)
	}
}

// unsafe reports what Display may never output: a C0 control other than
// line feed and tab, DEL, ESC, a C1 control (as a character or a raw
// byte), invalid UTF-8, an explicit bidi control, a tag character or a
// run of variation selectors.
func unsafeIn(s string) (rune, bool) {
	if !utf8.ValidString(s) {
		return utf8.RuneError, true
	}
	var prev rune
	for _, r := range s {
		vs := func(r rune) bool { return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef }
		if vs(r) && vs(prev) {
			return r, true
		}
		prev = r
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			return r, true
		case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r >= 0xe0000 && r <= 0xe007f:
			return r, true
		}
	}
	return 0, false
}

// FuzzDisplay: whatever goes in, what comes out holds no control
// character, escape, C1 byte, invalid UTF-8 or bidi control; every entry
// point is idempotent; DisplayLine and CleanLine are one line, and
// CleanLine passes CheckIdentifier; text without any of these is left
// as it is; and what Display keeps is the input's own text, in order.
func FuzzDisplay(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b]52;c;Y3VybA==\x07", "\x1b]0;title\x1b\\", "\x1b]8;;https://x/\x1b\\l\x1b]8;;\x1b\\",
		"\x1b[2J", "\x1b[1;31mred\x1b[0m", "\x1bP1$r0m\x1b\\", "\x9b2J", "\u009b2J", "\x9d0;t\x9c", "a\x00b\x07c",
		"\x1b", "\x1b]", "\x1b[", "\xc2", "\xe2\x80", "\u202ex", "a\u200bb", "👩‍💻", "x\r\ny", "\x1b]0;a\nb",
		"\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\", "\x1b#8", "\x1b(B", "é\x1bé", "\x1b]0;\xe2\x80\x98\x07",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := text.Display(s)
		if r, bad := unsafeIn(d); bad {
			t.Fatalf("Display(%q) = %q holds %U", s, d, r)
		}
		if again := text.Display(d); again != d {
			t.Fatalf("Display not idempotent: %q -> %q -> %q", s, d, again)
		}
		if _, bad := unsafeIn(s); !bad && !strings.ContainsAny(s, "\x1b") && d != s {
			t.Fatalf("Display changed safe text: %q -> %q", s, d)
		}
		line := text.DisplayLine(s)
		if r, bad := unsafeIn(line); bad || strings.ContainsAny(line, "\n\t") {
			t.Fatalf("DisplayLine(%q) = %q holds %U or a line break", s, line, r)
		}
		if again := text.DisplayLine(line); again != line {
			t.Fatalf("DisplayLine not idempotent: %q -> %q -> %q", s, line, again)
		}
		clean := text.CleanLine(s)
		if err := text.CheckIdentifier("x", clean); err != nil {
			t.Fatalf("CleanLine(%q) = %q: %v", s, clean, err)
		}
		if clean != strings.TrimFunc(clean, unicode.IsSpace) || strings.Contains(clean, "  ") {
			t.Fatalf("CleanLine(%q) = %q: space not collapsed", s, clean)
		}
		if again := text.CleanLine(clean); again != clean {
			t.Fatalf("CleanLine not idempotent: %q -> %q -> %q", s, clean, again)
		}
		if utf8.ValidString(s) {
			// Display only removes: its output is a subsequence of s.
			rest := s
			for _, r := range d {
				i := strings.IndexRune(rest, r)
				if i < 0 {
					t.Fatalf("Display(%q) = %q: %q is not the input's", s, d, r)
				}
				rest = rest[i+utf8.RuneLen(r):]
			}
		}
	})
}
