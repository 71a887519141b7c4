package sync

import (
	"context"
	"errors"
	"log"
	gosync "sync"
	"time"

	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/redact"
)

// Observer journals the person's choices as memory commits them, in
// whichever process made them (the CLI, the tray app, `serve`): memory
// calls it after each tag, untag, star, rename, forget and scrub. A memory
// that syncs with nothing costs one small file read per choice.
type Observer struct {
	m      *memory.Memory
	finder func() redact.SecretFinder
	now    func() time.Time

	once gosync.Once
	f    redact.SecretFinder
}

// Attach makes the memory report its choices to a new Observer. finder
// gives the person's secret finder when first needed (building it takes a
// moment): a project name it finds a secret in is not journaled. It may be
// nil, and may return nil.
func Attach(m *memory.Memory, finder func() redact.SecretFinder) *Observer {
	o := &Observer{m: m, finder: finder, now: time.Now}
	m.ObserveChoices(o)
	return o
}

func (o *Observer) secretFinder() redact.SecretFinder {
	o.once.Do(func() {
		if o.finder != nil {
			o.f = o.finder()
		}
	})
	return o.f
}

// Chose journals one choice. A failure is logged, never returned: the
// choice stands here, and the engine's next pass journals what it can
// tell from the memory (tags, stars, forgets).
func (o *Observer) Chose(ctx context.Context, c memory.Choice) {
	cfg, err := LoadConfig(o.m.Dir())
	if errors.Is(err, ErrNotSetUp) {
		return
	}
	if err != nil {
		log.Printf("ireneo: sync: %v", err)
		return
	}
	es := o.entries(ctx, c)
	if len(es) == 0 {
		return
	}
	if _, err := (journalWriter{o.m.Dir(), cfg, o.now}).appendEntries(es); err != nil {
		log.Printf("ireneo: sync: journal a choice: %v", err)
	}
}

// entries is a choice as journal entries.
func (o *Observer) entries(ctx context.Context, c memory.Choice) []Entry {
	conv := ""
	if c.Kind != memory.ChoiceRename {
		conv = memory.ConversationHash(c.Harness, c.SessionID)
	}
	switch c.Kind {
	case memory.ChoiceTag, memory.ChoiceUntag:
		op := opTag
		if c.Kind == memory.ChoiceUntag {
			op = opUntag
		}
		var es []Entry
		for _, p := range c.Projects {
			if checkProject(p) == nil && !hasSecret(o.secretFinder(), p) {
				es = append(es, Entry{Op: op, Conv: conv, Project: p})
			}
		}
		return es
	case memory.ChoiceStar, memory.ChoiceUnstar:
		return []Entry{{Op: opStar, Conv: conv, On: c.Kind == memory.ChoiceStar}}
	case memory.ChoiceRename:
		if checkProject(c.From) != nil || checkProject(c.To) != nil ||
			hasSecret(o.secretFinder(), c.From) || hasSecret(o.secretFinder(), c.To) {
			return nil
		}
		return []Entry{{Op: opRename, From: c.From, To: c.To}}
	case memory.ChoiceForget:
		return []Entry{{Op: opForget, Conv: conv}}
	case memory.ChoiceRedact:
		if spans := spansOf(c.Redactions); len(spans) > 0 {
			return []Entry{{Op: opRedact, Conv: conv, Spans: spans}}
		}
	}
	return nil
}
