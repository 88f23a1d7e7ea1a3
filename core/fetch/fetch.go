package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/text"
	"golang.org/x/text/encoding/htmlindex"
)

// URL fetching for documents (docs/design/pipeline.md, "URL fetching"):
// http and https only, a timeout, a bounded number of redirects, a byte
// limit enforced on what is read (never trusting Content-Length), a short
// list of textual Content types, HTML reduced to text, and no connection to
// a non-public address unless documents.allow_private_fetch is on. The
// address check runs on the resolved IP at connect time, so redirects and
// DNS answers that change between lookups are covered.

// Options bound one fetch.
type Options struct {
	Timeout      time.Duration
	MaxBytes     int64
	MaxRedirects int
	AllowPrivate bool
}

// Result is a fetched page reduced to text.
type Result struct {
	Content     string // text (HTML stripped), through text.Display
	ContentType string // media type, without parameters
	Title       string // from <title>, for HTML, through text.CleanLine
	Bytes       int    // bytes read from the wire
	FinalURL    string // after redirects, through text.RedactURL
}

// Error is a failed fetch. Permanent errors (a refused address, an
// unsupported content type, a page too large, a redirect loop, a 4xx
// answer) will fail again; the others (network errors, timeouts, 5xx) may
// not.
type Error struct {
	Msg       string
	Permanent bool
}

func (e *Error) Error() string { return e.Msg }

func permanentf(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...), Permanent: true}
}

// IsPermanent reports whether err is a fetch failure that a
// retry cannot fix.
func IsPermanent(err error) bool {
	var fe *Error
	return errors.As(err, &fe) && fe.Permanent
}

// allowedContentTypes are the media types a document may be fetched as;
// any text/* is allowed too.
var allowedContentTypes = map[string]bool{
	"application/json":      true,
	"application/xml":       true,
	"application/xhtml+xml": true,
}

// nonPublic are the IP ranges a fetch may not reach unless allowed, beyond
// what netip's predicates cover (loopback, private, link-local,
// multicast, unspecified).
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("2001::/32"),       // Teredo: a tunnel to an IPv4 address it hides
	netip.MustParsePrefix("2001:10::/28"),    // ORCHID (deprecated)
	netip.MustParsePrefix("2001:20::/28"),    // ORCHIDv2
}

// Prefixes that embed an IPv4 address, judged by that address.
var (
	ipv4Compatible = netip.MustParsePrefix("::/96")
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96")
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	cgnat          = netip.MustParsePrefix("100.64.0.0/10")
)

// blockedReason says why ip may not be fetched from, or "" when it may.
func blockedReason(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid():
		return "an invalid address"
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsUnspecified():
		return "an unspecified address"
	case ip.IsPrivate():
		return "a private address"
	case ip.IsLinkLocalUnicast():
		return "a link-local address"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	if ip.Is6() {
		b := ip.As16()
		// ::a.b.c.d (IPv4-compatible, deprecated) and ::ffff:0:a.b.c.d
		// (IPv4-translated): "[::127.0.0.1]" is no public address.
		if ipv4Compatible.Contains(ip) {
			return "an IPv4-compatible address (deprecated)"
		}
		if ipv4Translated.Contains(ip) {
			return "an IPv4-translated address"
		}
		// NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4
		// address: judge that one.
		if nat64.Contains(ip) {
			if r := blockedReason(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})); r != "" {
				return r + " (behind NAT64)"
			}
			return ""
		}
		if sixToFour.Contains(ip) {
			if r := blockedReason(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})); r != "" {
				return r + " (behind 6to4)"
			}
			return ""
		}
	}
	if cgnat.Contains(ip) {
		return "a carrier-grade NAT address"
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return "a reserved address"
		}
	}
	return ""
}

func refused(host, why string) *Error {
	return permanentf("refusing to fetch from %s: it is %s (set documents.allow_private_fetch = true to allow)", host, why)
}

// checkFetchURL validates a URL before any connection: http or https, a
// host, and (unless private fetches are allowed) no literal non-public
// address or localhost name.
func checkFetchURL(u *url.URL, allowPrivate bool) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return permanentf("only http and https URLs can be fetched, not %q", u.Scheme)
	}
	host := u.Hostname()
	if host == "" {
		return permanentf("the URL has no host")
	}
	if allowPrivate {
		return nil
	}
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return refused(host, "a loopback address")
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if why := blockedReason(ip); why != "" {
			return refused(host, why)
		}
	} else if numericHost(h) {
		// 2130706433, 0x7f.1, 0177.0.0.1: no DNS name ends in a number;
		// a resolver may read them as an IPv4 address in another notation.
		return refused(host, "a numeric host that is not a plain IP address")
	}
	return nil
}

// numericHost reports a host name whose last label is a number (decimal,
// or hexadecimal with 0x): an IPv4 address in a notation netip does not
// read, never a DNS name.
func numericHost(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") {
		last = last[2:]
		return strings.Trim(last, "0123456789abcdef") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}

// ValidateURL parses and checks a document URL as the fetcher will. Beyond
// checkFetchURL, a URL that carries a credential is refused: a user name
// or password (user:password@host), a secret-looking query or fragment
// value (?access_token=…, &sig=…, ?key=AIza…) or a token in the path, as
// text.URLSecrets finds them. A document's URL is stored, listed and
// logged; the only way it never holds a secret is never to take one. (A
// redirect may lead to a signed URL: redirects are not held to this, and
// Result.FinalURL is redacted.)
func ValidateURL(raw string, allowPrivate bool) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		return nil, permanentf("url is not a valid URL")
	}
	if err := checkFetchURL(u, allowPrivate); err != nil {
		return nil, err
	}
	if u.User != nil {
		return nil, permanentf("url must not hold a user name or password (user:password@host): cairn stores a document's URL, so it cannot take one that needs a login")
	}
	if found := text.URLSecrets(raw); len(found) > 0 {
		return nil, permanentf("url must not hold a credential (%s): cairn stores a document's URL, so it cannot take one with a token or signature in it", strings.Join(found, ", "))
	}
	return u, nil
}

// fetchClient builds the HTTP client of one fetch.
func fetchClient(opts Options) *http.Client {
	dialer := &net.Dialer{Timeout: opts.Timeout}
	if !opts.AllowPrivate {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return refused(address, "not an IP address")
			}
			if why := blockedReason(ap.Addr()); why != "" {
				return refused(ap.Addr().String(), why)
			}
			return nil
		}
	}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would connect for us, past the address check
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   opts.Timeout,
		ResponseHeaderTimeout: opts.Timeout,
		MaxIdleConns:          1,
		IdleConnTimeout:       time.Second,
		DisableCompression:    false,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   opts.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			for _, v := range via {
				if v.URL.String() == req.URL.String() {
					return permanentf("redirect loop: %s redirects back to itself", text.RedactURL(req.URL.String()))
				}
			}
			if len(via) > opts.MaxRedirects {
				return permanentf("too many redirects (more than %d, documents.max_redirects)", opts.MaxRedirects)
			}
			return checkFetchURL(req.URL, opts.AllowPrivate)
		},
	}
}

// URL fetches raw and reduces it to text. An error's message holds no
// credential of a URL (text.RedactURLsIn) and no control character
// (text.DisplayLine): it is stored as the document's error and logged.
func URL(ctx context.Context, raw string, opts Options) (*Result, error) {
	res, err := fetchURL(ctx, raw, opts)
	var fe *Error
	if errors.As(err, &fe) {
		fe.Msg = text.DisplayLine(text.RedactURLsIn(fe.Msg))
	}
	return res, err
}

func fetchURL(ctx context.Context, raw string, opts Options) (*Result, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = config.DefaultDocumentsFetchTimeout
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = config.DefaultDocumentsMaxContentBytes
	}
	if opts.MaxRedirects < 0 {
		opts.MaxRedirects = 0
	}
	u, err := ValidateURL(raw, opts.AllowPrivate)
	if err != nil {
		return nil, err
	}
	shown := text.RedactURL(u.String()) // the URL as errors say it
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, permanentf("url is not a valid URL")
	}
	req.Header.Set("Accept", "text/html, text/*;q=0.9, application/json;q=0.8, application/xml;q=0.8")
	req.Header.Set("User-Agent", "cairn-document-fetcher")
	client := fetchClient(opts)
	defer client.CloseIdleConnections()
	res, err := client.Do(req)
	if err != nil {
		var fe *Error
		if errors.As(err, &fe) {
			return nil, fe
		}
		if ctx.Err() != nil {
			return nil, &Error{Msg: fmt.Sprintf("fetch %s: timed out after %s (documents.fetch_timeout)", shown, opts.Timeout)}
		}
		return nil, &Error{Msg: fmt.Sprintf("fetch %s: %v", shown, unwrapURLError(err))}
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		perm := res.StatusCode >= 400 && res.StatusCode < 500 && res.StatusCode != 408 && res.StatusCode != 425 && res.StatusCode != 429
		return nil, &Error{Msg: fmt.Sprintf("fetch %s: HTTP %s", shown, res.Status), Permanent: perm}
	}
	mediaType, params := "", map[string]string{}
	if ct := res.Header.Get("Content-Type"); ct != "" {
		mt, p, err := mime.ParseMediaType(ct)
		if err != nil {
			return nil, permanentf("fetch %s: unreadable content type %q", shown, ct)
		}
		mediaType, params = mt, p
	}
	if mediaType != "" && !textual(mediaType) {
		return nil, permanentf("fetch %s: content type %s is not supported (text/*, application/json, application/xml, application/xhtml+xml are)", shown, mediaType)
	}
	if res.ContentLength > opts.MaxBytes {
		return nil, permanentf("fetch %s: content is %d bytes; the limit is %d (documents.max_content_bytes)", shown, res.ContentLength, opts.MaxBytes)
	}
	// Read at most one byte past the limit, whatever the server declared.
	body, err := io.ReadAll(io.LimitReader(res.Body, opts.MaxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Msg: fmt.Sprintf("fetch %s: timed out after %s (documents.fetch_timeout)", shown, opts.Timeout)}
		}
		return nil, &Error{Msg: fmt.Sprintf("fetch %s: reading the body: %v", shown, unwrapURLError(err))}
	}
	if int64(len(body)) > opts.MaxBytes {
		return nil, permanentf("fetch %s: content exceeds %d bytes (documents.max_content_bytes)", shown, opts.MaxBytes)
	}
	if mediaType == "" {
		mt, p, _ := mime.ParseMediaType(http.DetectContentType(body))
		mediaType, params = mt, p
		if !textual(mediaType) {
			return nil, permanentf("fetch %s: content type %s is not supported (text/*, application/json, application/xml, application/xhtml+xml are)", shown, mediaType)
		}
	}
	decoded := decodeCharset(body, params["charset"])
	out := &Result{ContentType: mediaType, Bytes: len(body), FinalURL: text.RedactURL(res.Request.URL.String())}
	if mediaType == "text/html" || mediaType == "application/xhtml+xml" {
		out.Content, out.Title = StripHTML(decoded)
	} else {
		out.Content = text.Display(decoded) // no control character or escape sequence is stored
	}
	return out, nil
}

func textual(mediaType string) bool {
	return strings.HasPrefix(mediaType, "text/") || allowedContentTypes[mediaType]
}

// decodeCharset turns body into UTF-8 text: a declared charset other than
// UTF-8 is decoded when known; invalid bytes become U+FFFD.
func decodeCharset(body []byte, charset string) string {
	cs := strings.ToLower(strings.TrimSpace(charset))
	if cs != "" && cs != "utf-8" && cs != "utf8" {
		if enc, err := htmlindex.Get(cs); err == nil {
			if b, err := enc.NewDecoder().Bytes(body); err == nil {
				body = b
			}
		}
	}
	s := string(body)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

// unwrapURLError drops the *url.Error wrapper (its text repeats the method
// and URL) and reports a refused address plainly.
func unwrapURLError(err error) error {
	var fe *Error
	if errors.As(err, &fe) {
		return fe
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
