// Package scrubber builds Ireneo's secret scrubber from the person's
// settings and hands it to the parts that need it: the import hook (CLI
// import, GUI import and folder watching all take ImportRedactor), the
// scrub command and screen, and the MCP server's audit log.
//
// It is where the scrub package (detection) meets the memory package
// (sessions, files, SQLite): memory takes a redact.SecretFinder, which
// *scrub.Scrubber satisfies, so neither imports the other.
package scrubber

import (
	"slices"
	"sync"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/scrub"
	"github.com/ireneo-app/ireneo/settings"
)

var (
	mu       sync.Mutex
	cached   *scrub.Scrubber
	cachedOf []settings.Pattern
)

// For returns the scrubber for the person's patterns. The last one built is
// kept, so asking again with the same patterns costs nothing. A bad pattern
// is an error naming it.
func For(patterns []settings.Pattern) (*scrub.Scrubber, error) {
	mu.Lock()
	defer mu.Unlock()
	if cached != nil && slices.Equal(cachedOf, patterns) {
		return cached, nil
	}
	ps := make([]scrub.Pattern, len(patterns))
	for i, p := range patterns {
		ps[i] = scrub.Pattern{Name: p.Name, Regex: p.Regex}
	}
	sc, err := scrub.New(ps)
	if err != nil {
		return nil, err
	}
	cached, cachedOf = sc, slices.Clone(patterns)
	return sc, nil
}

// ImportRedactor is the scrub-on-import hook the settings ask for
// (importers.Options.Redact): it redacts every secret in a conversation,
// its title, working directory and other fields included, before it is
// stored. It is nil when the settings turn scrub on import off. A bad
// pattern is an error naming it; the caller adds where it came from.
func ImportRedactor(st settings.Settings) (func(*funes.Session) map[string]int, error) {
	if !st.ScrubOnImport {
		return nil, nil
	}
	sc, err := For(st.UserPatterns)
	if err != nil {
		return nil, err
	}
	return redact.Redactor(sc), nil
}
