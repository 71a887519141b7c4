package mcpserver

import (
	"sync"

	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/scrub"
)

// auditSecrets is the secret finder the audit log redacts arguments with,
// built on first need. Building gitleaks' 222 rules takes 50-90 ms, most of
// what `ireneo mcp` spent before it could answer initialize (measured on the
// heavy memory: 53 ms of ~80); initialize reads no arguments, so the rules
// are built in the background once a client has initialized, and the first
// tool call waits for them if it comes sooner. No call is audited unredacted.
type auditSecrets struct {
	once  sync.Once
	build func() redact.SecretFinder // nil result: the built-in rules
	f     redact.SecretFinder
}

func newAuditSecrets(eager redact.SecretFinder, build func() redact.SecretFinder) *auditSecrets {
	a := &auditSecrets{build: build}
	if eager != nil {
		a.once.Do(func() { a.f = eager })
	}
	return a
}

// get is the finder, built now if it is not yet; nil only if even the
// built-in rules cannot be loaded.
func (a *auditSecrets) get() redact.SecretFinder {
	a.once.Do(func() {
		if a.build != nil {
			a.f = a.build()
		}
		if a.f == nil {
			if sc, err := scrub.New(nil); err == nil {
				a.f = sc
			}
		}
	})
	return a.f
}

// warm builds the finder in the background.
func (a *auditSecrets) warm() { go a.get() }
