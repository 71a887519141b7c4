package scrub

import (
	"regexp"
	"strings"
)

// Documentation placeholders are not secrets: an assistant's instructions
// that say https://your-username:your-token@github.com or API_KEY=<your key>
// must be kept as written. isPlaceholder tells them from a secret:
//   - a variable or template reference: ${TOKEN}, $TOKEN, {{ .Token }},
//     <password>, %PASSWORD%, [token], $(cat token);
//   - filler: xxxx, ****, ...., XXXX-XXXX;
//   - a word that names the value instead of being it: password, token,
//     secret, changeme, example, redacted, …;
//   - a phrase that tells the reader what to put there: your-token,
//     YOUR_API_KEY, example-key, api_key_here, paste-token-here;
//   - a dummy made of such a word: testpassword, mypassword, demo_token1
//     (seen in real chats as postgresql://testuser:testpassword@localhost);
//   - an ALL_CAPS_NAME, which is an environment variable's name.
var (
	placeholderWrapped = regexp.MustCompile(`^(?:\$\{[^}]*\}|\$[A-Za-z_][\w.-]*|\$\([^)]*\)|\{\{?[^}]*\}?\}|<[^>]*>|%[\w.-]*%|\[[^\]]*\]|«[^»]*»)$`)
	placeholderFiller  = regexp.MustCompile(`^(?i:[x*.#•…_-]+)$`)
	placeholderWords   = regexp.MustCompile(`^(?i:pass|password|passwd|passwort|pwd|pw|secret|token|apikey|api[_-]key|key|access[_-]?token|changeme|change[_-]me|changeit|redacted|example|sample|dummy|placeholder|none|null|nil|empty|undefined|todo|tbd|foo|bar|foobar|baz|qux|username|user)$`)
	placeholderPhrase  = regexp.MustCompile(`^(?i:(?:your|yours|example|sample|dummy|fake|placeholder|insert|enter|replace|paste|put)[-_.]?[\w.-]*|[\w.-]*[-_](?:here|goes[-_]here))$`)
	placeholderDummy   = regexp.MustCompile(`^(?i:(?:test|my|some|dummy|fake|sample|example|default|demo|dev|local)[-_]?(?:pass|password|passwd|pwd|pw|secret|token|key|apikey|api[-_]key)\d{0,3})$`)
	placeholderEnvName = regexp.MustCompile(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$`)
)

// isPlaceholder reports whether a found value is a documentation
// placeholder rather than a secret.
func isPlaceholder(v string) bool {
	// A placeholder may end like a sentence: "YourPassword123!".
	v = strings.TrimRight(strings.TrimSpace(v), "!")
	if v == "" {
		return true
	}
	return placeholderWrapped.MatchString(v) || placeholderFiller.MatchString(v) ||
		placeholderWords.MatchString(v) || placeholderPhrase.MatchString(v) || placeholderDummy.MatchString(v) ||
		placeholderEnvName.MatchString(v)
}
