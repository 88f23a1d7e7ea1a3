package fetch

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/text"
)

func TestStripHTML(t *testing.T) {
	for _, tc := range []struct{ in, text, title string }{
		{"plain text", "plain text", ""},
		{"<p>a</p><p>b</p>", "a\n\nb", ""},
		{"<ul><li>one</li><li>two</li></ul>", "one\ntwo", ""},
		{"a<br>b<br/>c", "a\nb\nc", ""},
		{"x <b>bold</b>y", "x boldy", ""},
		{"<title>T &amp; U</title><title>second</title>body", "body", "T & U"},
		{"<SCRIPT type='a>b'>if (a < b) {}</SCRIPT>after", "after", ""},
		{"<style>p{}</style><noscript>ns</noscript><template><p>t</p></template>ok", "ok", ""},
		{"<script>never closed", "", ""},
		{"a <!-- c <p> --> b", "a b", ""},
		{"<!-- unterminated", "", ""},
		{"1 < 2 and 3 > 2", "1 < 2 and 3 > 2", ""},
		{"&lt;script&gt;alert(1)&lt;/script&gt;", "<script>alert(1)</script>", ""},
		{"<a href=\"x>y\">link</a>", "link", ""},
		{"<div\n>multi\n\n   line   text</div>", "multi line text", ""},
		{"<p>caf&eacute; &#233; &#x41;</p>", "café é A", ""},
		{"<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", "a b\nc", ""},
		{"<scriptx>kept</scriptx>", "kept", ""},
		{"<", "<", ""},
		{"</", "</", ""},
		{"<p", "", ""},
	} {
		text, title := StripHTML(tc.in)
		if text != tc.text || title != tc.title {
			t.Errorf("StripHTML(%q) = %q, %q; want %q, %q", tc.in, text, title, tc.text, tc.title)
		}
	}
}

func FuzzStripHTML(f *testing.F) {
	for _, s := range []string{"<html><head><title>x</title></head><body><p>a &amp; b</p></body></html>",
		"<script>", "<!--", "<a b='", "&#x110000;", "<title>", "</title", "<p/>x", "\xff<p>\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		body, title := StripHTML(in)
		if utf8.ValidString(in) && (!utf8.ValidString(body) || !utf8.ValidString(title)) {
			t.Fatalf("valid input gave invalid UTF-8: %q → %q, %q", in, body, title)
		}
		if body != strings.TrimSpace(body) || strings.Contains(body, "\n\n\n") || strings.Contains(body, "  ") {
			t.Fatalf("whitespace not collapsed: %q → %q", in, body)
		}
		// Markup-free input without entities is only whitespace-collapsed.
		if !strings.ContainsAny(in, "<&") && utf8.ValidString(in) && body != text.CollapseSpace(in) {
			t.Fatalf("plain body changed: %q → %q", in, body)
		}
		// Stripping is idempotent on text that has no markup left.
		if !strings.ContainsAny(body, "<&") {
			if again, _ := StripHTML(body); again != text.CollapseSpace(body) && utf8.ValidString(body) {
				t.Fatalf("not stable: %q → %q → %q", in, body, again)
			}
		}
	})
}

func TestBlockedReason(t *testing.T) {
	for addr, blocked := range map[string]bool{
		"127.0.0.1": true, "127.8.9.1": true, "::1": true, "10.0.0.1": true, "172.16.5.5": true,
		"192.168.1.1": true, "169.254.169.254": true, "fe80::1": true, "0.0.0.0": true, "::": true,
		"224.0.0.1": true, "ff02::1": true, "100.64.0.1": true, "100.127.255.255": true, "fc00::1": true,
		"::ffff:127.0.0.1": true, "::ffff:10.0.0.1": true, "64:ff9b::7f00:1": true, "2002:7f00:1::": true,
		"255.255.255.255": true, "198.18.0.1": true,
		"93.184.216.34": false, "8.8.8.8": false, "100.128.0.1": false, "2606:4700::1111": false,
		"64:ff9b::808:808": false, "172.32.0.1": false,
	} {
		if got := blockedReason(netip.MustParseAddr(addr)) != ""; got != blocked {
			t.Errorf("blockedReason(%s) blocked = %v, want %v", addr, got, blocked)
		}
	}
}

// The dial-time guard refuses a loopback connection even when the URL
// check is bypassed (a redirect, or a name resolving to 127.0.0.1).
func TestFetchDialGuard(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "internal") }))
	defer srv.Close()
	c := fetchClient(Options{Timeout: 5 * time.Second, MaxBytes: 1024, MaxRedirects: 5})
	_, err := c.Get(srv.URL)
	if err == nil || !strings.Contains(err.Error(), "loopback") || !IsPermanent(err) {
		t.Fatalf("dial to %s: %v, want the loopback refusal", srv.URL, err)
	}
	// A redirect to a private address is refused before any connection,
	// and a redirect back to an earlier URL is reported as a loop.
	first, _ := http.NewRequest("GET", "https://example.com/a", nil)
	to, _ := http.NewRequest("GET", "http://10.0.0.1/admin", nil)
	if err := c.CheckRedirect(to, []*http.Request{first}); err == nil || !strings.Contains(err.Error(), "private") {
		t.Fatalf("redirect to 10.0.0.1: %v", err)
	}
	if err := c.CheckRedirect(first, []*http.Request{first}); err == nil || !strings.Contains(err.Error(), "redirect loop") {
		t.Fatalf("redirect loop: %v", err)
	}
	// With allow_private_fetch the same loopback server is reachable.
	c = fetchClient(Options{Timeout: 5 * time.Second, MaxBytes: 1024, AllowPrivate: true})
	res, err := c.Get(srv.URL)
	if err != nil {
		t.Fatalf("allowed fetch: %v", err)
	}
	res.Body.Close()
}

// FuzzValidateFetchURL: any document URL is judged without panicking, and
// an accepted one is http(s) with a host that is not a literal
// non-public address or a localhost name.
func FuzzValidateFetchURL(f *testing.F) {
	for _, s := range []string{"https://example.com/a", "http://127.0.0.1/", "http://[::1]:80/", "http://localhost./x",
		"ftp://example.com", "http://", "http://[fe80::1%25en0]/", "http://[64:ff9b::7f00:1]/", "http://100.64.0.1/",
		"HTTP://EXAMPLE.COM", " https://a.b ", "http://user:pw@10.0.0.1/", "http://2130706433/", "//example.com", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := ValidateURL(raw, false)
		if err != nil {
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Hostname() == "" {
			t.Fatalf("accepted %q: scheme %q host %q", raw, u.Scheme, u.Hostname())
		}
		h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		if h == "localhost" || strings.HasSuffix(h, ".localhost") {
			t.Fatalf("accepted a localhost name: %q", raw)
		}
		if ip, err := netip.ParseAddr(u.Hostname()); err == nil && blockedReason(ip) != "" {
			t.Fatalf("accepted a non-public address: %q (%s)", raw, blockedReason(ip))
		}
	})
}
