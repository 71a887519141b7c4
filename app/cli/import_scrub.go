package cli

import (
	"github.com/ireneo-app/ireneo/memory"
)

// Scrub on import: on by default, off when the settings say
// scrub_on_import false (or the import runs with --no-scrub).
func init() { importRedactor = scrubOnImport }

// scrubOnImport gives the import its redactor, built from the settings'
// patterns, or nil when the settings turn scrub on import off. A settings
// file that cannot be read stops the import rather than risk importing
// secrets with the person's patterns missing.
func scrubOnImport(g *globals) (func(*memory.Session) map[string]int, error) {
	if g.cfg.SettingsErr != nil {
		return nil, g.cfg.SettingsErr
	}
	if !g.cfg.Settings.ScrubOnImport {
		return nil, nil
	}
	sc, err := g.newScrubber()
	if err != nil {
		return nil, err
	}
	return sc.RedactSession, nil
}

// newScrubber builds the scrubber with the person's own patterns.
func (g *globals) newScrubber() (*memory.Scrubber, error) {
	if g.cfg.SettingsErr != nil {
		return nil, g.cfg.SettingsErr
	}
	ps := make([]memory.Pattern, len(g.cfg.Settings.UserPatterns))
	for i, p := range g.cfg.Settings.UserPatterns {
		ps[i] = memory.Pattern{Name: p.Name, Regex: p.Regex}
	}
	sc, err := memory.NewScrubber(ps)
	if err != nil {
		return nil, &settingsError{path: g.cfg.SettingsPath(), err: err}
	}
	return sc, nil
}

// settingsError names the settings file a bad pattern came from.
type settingsError struct {
	path string
	err  error
}

func (e *settingsError) Error() string { return "settings " + e.path + ": " + e.err.Error() }
func (e *settingsError) Unwrap() error { return e.err }
