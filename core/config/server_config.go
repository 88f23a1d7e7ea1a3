package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// NormalizeOrigin returns the canonical form of a browser origin
// (scheme://host[:port], lower case, no path), or an error saying what is
// wrong with it. Browsers send origins in this form; the configured list is
// compared after normalizing both sides.
func NormalizeOrigin(s string) (string, error) {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("want an origin like https://app.example.com or http://localhost:5173")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("an origin's scheme is http or https")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("an origin has no path, query or user, only scheme://host[:port]")
	}
	if strings.Contains(u.Host, "*") {
		return "", fmt.Errorf("wildcards are not allowed: list each trusted origin")
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// NormalizeHost returns the canonical form of a Host header name: lower
// case, without its port or the brackets of an IPv6 address.
func NormalizeHost(s string) string {
	h := strings.TrimSpace(s)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.ToLower(strings.TrimSuffix(h, "."))
}

func (c *Config) validateAllowed() error {
	for _, o := range c.Server.AllowedOrigins {
		if _, err := NormalizeOrigin(o); err != nil {
			return &ConfigError{Key: "server.allowed_origins", Value: strconv.Quote(o), Reason: err.Error()}
		}
	}
	for _, h := range c.Server.AllowedHosts {
		if n := NormalizeHost(h); n == "" || strings.ContainsAny(h, "/ *@?#") {
			return &ConfigError{Key: "server.allowed_hosts", Value: strconv.Quote(h),
				Reason: "want a host name or address like cairn.internal or 10.0.0.5 (no scheme, path or wildcard)"}
		}
	}
	return nil
}
