package config

import (
	"net/url"
	"strings"
)

// validate checks storage.url: a postgres:// or postgresql:// URL that
// parses, and not beside storage.path (one store or the other).
func (s StorageConfig) validate() error {
	if s.URL == "" {
		if s.PasswordFile != "" {
			return &ConfigError{Key: "storage.password_file", Value: s.PasswordFile, Reason: "is for storage.url (PostgreSQL), which is not set"}
		}
		return nil
	}
	shown := RedactURL(s.URL)
	if !strings.HasPrefix(s.URL, "postgres://") && !strings.HasPrefix(s.URL, "postgresql://") {
		return &ConfigError{Key: "storage.url", Value: shown, Reason: "want a PostgreSQL URL, postgres://user@host:port/database"}
	}
	if u, err := url.Parse(s.URL); err != nil || u.Host == "" && u.Query().Get("host") == "" {
		return &ConfigError{Key: "storage.url", Value: shown, Reason: "not a URL cairn can read: want postgres://user@host:port/database"}
	}
	if s.Path != "" {
		return &ConfigError{Key: "storage.url", Value: shown, Reason: "set with storage.path: name one store, the file or the URL"}
	}
	return nil
}

// RedactURL is a database URL as it may be shown: its password, in the
// user information or a password parameter, hidden. An unparsable one is
// hidden whole.
func RedactURL(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil {
		return "postgres://(unparsable URL hidden)"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
