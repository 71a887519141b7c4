package cli

import (
	"github.com/ireneo-app/ireneo/app/scrubber"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/scrub"
)

// Scrub on import: on by default, off when the settings say
// scrub_on_import false (or the import runs with --no-scrub).
func init() { importRedactor = scrubOnImport }

// scrubOnImport gives the import its redactor, built from the settings'
// patterns, or nil when the settings turn scrub on import off. A settings
// file that cannot be read stops the import rather than risk importing
// secrets with the person's patterns missing.
func scrubOnImport(g *globals) (func(*funes.Session) map[string]int, error) {
	if g.cfg.SettingsErr != nil {
		return nil, g.cfg.SettingsErr
	}
	redact, err := scrubber.ImportRedactor(g.cfg.Settings)
	if err != nil {
		return nil, &settingsError{path: g.cfg.SettingsPath(), err: err}
	}
	return redact, nil
}

// newScrubber builds the scrubber with the person's own patterns.
func (g *globals) newScrubber() (*scrub.Scrubber, error) {
	if g.cfg.SettingsErr != nil {
		return nil, g.cfg.SettingsErr
	}
	sc, err := scrubber.For(g.cfg.Settings.UserPatterns)
	if err != nil {
		return nil, &settingsError{path: g.cfg.SettingsPath(), err: err}
	}
	return sc, nil
}

// auditSecrets is what the MCP server redacts from the queries it audits:
// the settings' scrubber, or nil (the server's built-in rules) when the
// settings cannot be read or hold a bad pattern — a server must still start.
func (g *globals) auditSecrets() redact.SecretFinder {
	sc, err := g.newScrubber()
	if err != nil {
		return nil
	}
	return sc
}

// settingsError names the settings file a bad pattern came from.
type settingsError struct {
	path string
	err  error
}

func (e *settingsError) Error() string { return "settings " + e.path + ": " + e.err.Error() }
func (e *settingsError) Unwrap() error { return e.err }
