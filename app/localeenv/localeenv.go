// Package localeenv makes the C and POSIX locales read as English to Fyne,
// before Fyne's packages initialise.
//
// Fyne looks up the user's locale while its packages initialise, before
// main runs, and logs "Fyne error: Error parsing user locale C" for
// LANG=C.UTF-8, the default of Debian and Ubuntu containers. Every command
// of the CLI links Fyne, and `ireneo mcp` is started by clients with a bare
// environment, so each would print that noise on stderr. Messages in the C
// locale are English, so saying so through LANGUAGE, which the lookup reads
// for such a locale and which gettext ignores in it, changes nothing else.
//
// Import it for its side effect, from main only. It must import nothing but
// the standard library: Go initialises packages in import-path order among
// those whose imports are done, and this package's path sorts before the
// locale library Fyne uses (github.com/jeandeaual/go-locale), which Fyne's
// lang package needs, so this init runs first.
package localeenv

import (
	"os"
	"strings"
)

func init() {
	if IsC(effective()) && os.Getenv("LANGUAGE") == "" {
		os.Setenv("LANGUAGE", "en")
	}
}

// effective is the locale that decides messages: the first set of LC_ALL,
// LC_MESSAGES and LANG, as POSIX orders them.
func effective() string {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return ""
}

// IsC reports whether a locale name is the C or POSIX locale with an
// encoding or modifier, such as C.UTF-8 or POSIX@euro. The bare names and an
// unset locale need nothing: the lookup already reads them as no locale.
func IsC(loc string) bool {
	lang, rest, found := strings.Cut(loc, ".")
	if !found {
		lang, rest, found = strings.Cut(loc, "@")
	}
	return found && rest != "" && (lang == "C" || lang == "POSIX")
}
