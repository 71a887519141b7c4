package cli

import (
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/settings"
)

// Scrub on import: on by default, off when the settings say
// scrub_on_import false (or the import runs with --no-scrub).
func init() { importRedactor = scrubOnImport }

// scrubOnImport gives the import its redactor, built from the settings'
// patterns, or nil when the settings turn scrub on import off. A settings
// file that cannot be read stops the import rather than risk importing
// secrets with the person's patterns missing.
func scrubOnImport(g *globals) (func(*memory.Session) map[string]int, error) {
	st, err := settings.Load()
	if err != nil {
		return nil, err
	}
	if !st.ScrubOnImport {
		return nil, nil
	}
	sc, err := newScrubber(st)
	if err != nil {
		return nil, err
	}
	return sc.RedactSession, nil
}

// newScrubber builds the scrubber with the person's own patterns.
func newScrubber(st settings.Settings) (*memory.Scrubber, error) {
	ps := make([]memory.Pattern, len(st.UserPatterns))
	for i, p := range st.UserPatterns {
		ps[i] = memory.Pattern{Name: p.Name, Regex: p.Regex}
	}
	sc, err := memory.NewScrubber(ps)
	if err != nil {
		return nil, &settingsError{path: settings.Path(), err: err}
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
