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
	Content     string // text (HTML stripped)
	ContentType string // media type, without parameters
	Title       string // from <title>, for HTML
	Bytes       int    // bytes read from the wire
	FinalURL    string // after redirects
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
}

// Prefixes that embed an IPv4 address, judged by that address.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
	cgnat     = netip.MustParsePrefix("100.64.0.0/10")
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
	}
	return nil
}

// ValidateURL parses and checks a document URL as the fetcher will.
func ValidateURL(raw string, allowPrivate bool) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, permanentf("url is not a valid URL")
	}
	if err := checkFetchURL(u, allowPrivate); err != nil {
		return nil, err
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
					return permanentf("redirect loop: %s redirects back to itself", req.URL.Redacted())
				}
			}
			if len(via) > opts.MaxRedirects {
				return permanentf("too many redirects (more than %d, documents.max_redirects)", opts.MaxRedirects)
			}
			return checkFetchURL(req.URL, opts.AllowPrivate)
		},
	}
}

// URL fetches raw and reduces it to text.
func URL(ctx context.Context, raw string, opts Options) (*Result, error) {
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
			return nil, &Error{Msg: fmt.Sprintf("fetch %s: timed out after %s (documents.fetch_timeout)", u.Redacted(), opts.Timeout)}
		}
		return nil, &Error{Msg: fmt.Sprintf("fetch %s: %v", u.Redacted(), unwrapURLError(err))}
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		perm := res.StatusCode >= 400 && res.StatusCode < 500 && res.StatusCode != 408 && res.StatusCode != 425 && res.StatusCode != 429
		return nil, &Error{Msg: fmt.Sprintf("fetch %s: HTTP %s", u.Redacted(), res.Status), Permanent: perm}
	}
	mediaType, params := "", map[string]string{}
	if ct := res.Header.Get("Content-Type"); ct != "" {
		mt, p, err := mime.ParseMediaType(ct)
		if err != nil {
			return nil, permanentf("fetch %s: unreadable content type %q", u.Redacted(), ct)
		}
		mediaType, params = mt, p
	}
	if mediaType != "" && !textual(mediaType) {
		return nil, permanentf("fetch %s: content type %s is not supported (text/*, application/json, application/xml, application/xhtml+xml are)", u.Redacted(), mediaType)
	}
	if res.ContentLength > opts.MaxBytes {
		return nil, permanentf("fetch %s: content is %d bytes; the limit is %d (documents.max_content_bytes)", u.Redacted(), res.ContentLength, opts.MaxBytes)
	}
	// Read at most one byte past the limit, whatever the server declared.
	body, err := io.ReadAll(io.LimitReader(res.Body, opts.MaxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Msg: fmt.Sprintf("fetch %s: timed out after %s (documents.fetch_timeout)", u.Redacted(), opts.Timeout)}
		}
		return nil, &Error{Msg: fmt.Sprintf("fetch %s: reading the body: %v", u.Redacted(), unwrapURLError(err))}
	}
	if int64(len(body)) > opts.MaxBytes {
		return nil, permanentf("fetch %s: content exceeds %d bytes (documents.max_content_bytes)", u.Redacted(), opts.MaxBytes)
	}
	if mediaType == "" {
		mt, p, _ := mime.ParseMediaType(http.DetectContentType(body))
		mediaType, params = mt, p
		if !textual(mediaType) {
			return nil, permanentf("fetch %s: content type %s is not supported (text/*, application/json, application/xml, application/xhtml+xml are)", u.Redacted(), mediaType)
		}
	}
	text := decodeCharset(body, params["charset"])
	out := &Result{ContentType: mediaType, Bytes: len(body), FinalURL: res.Request.URL.String()}
	if mediaType == "text/html" || mediaType == "application/xhtml+xml" {
		out.Content, out.Title = StripHTML(text)
	} else {
		out.Content = text
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
