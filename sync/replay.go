package sync

import (
	"slices"
	"sort"
)

// Every machine reads every journal and replays all their entries in one
// order — clock, then machine, then place in the journal — over the
// conversations it holds, each starting from the project its file carries.
// So the last choice made about an item (a conversation's star, one
// project on one conversation) wins on every machine, and every machine
// that holds the same conversations and entries reaches the same tags and
// stars. A rename moves every conversation that has the old project at
// that moment, those that arrive later included (the replay is run again
// as they arrive). A forget is final.

// sortEntries puts entries in replay order. The sort is stable, so two
// entries of one journal with the same clock (a clock set back by hand)
// keep their journal's order.
func sortEntries(es []Entry) {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.Clock != b.Clock {
			return a.Clock.Less(b.Clock)
		}
		return a.machine < b.machine
	})
}

// replayed is what the journals say.
type replayed struct {
	forgotten  map[string]Clock           // conversation → its first forget
	tags       map[string]map[string]bool // conversation → project → on, for conversations an entry touched
	stars      map[string]bool            // conversation → starred, likewise
	redactions map[string][]Entry         // conversation → its redact entries, in order
	setBy      map[itemKey]string         // the machine whose entry set each item last
	own        string
	ownLast    map[itemKey]ownSet // this machine's last entry about each item
	conflicts  int                // entries that overrode another machine's different choice
	derived    map[string]string  // conversation → the project its file carries
}

// ownSet is this machine's last entry about an item: when, and what it set.
type ownSet struct {
	at Clock
	on bool
}

type itemKey struct {
	conv, project string // project "" for the star
}

// replay replays sorted entries over the conversations held here
// (derived: conversation hash → the project its file carries, "" for
// none); own is this machine's id.
func replay(es []Entry, derived map[string]string, own string) *replayed {
	r := &replayed{forgotten: map[string]Clock{}, tags: map[string]map[string]bool{}, stars: map[string]bool{},
		redactions: map[string][]Entry{}, setBy: map[itemKey]string{}, derived: derived, own: own, ownLast: map[itemKey]ownSet{}}
	for _, e := range es {
		switch e.Op {
		case opForget:
			if _, ok := r.forgotten[e.Conv]; !ok {
				r.forgotten[e.Conv] = e.Clock
			}
		case opRedact:
			r.redactions[e.Conv] = append(r.redactions[e.Conv], e)
		case opTag, opUntag:
			r.set(e, itemKey{e.Conv, e.Project}, e.Op == opTag)
		case opStar:
			r.set(e, itemKey{e.Conv, ""}, e.On)
		case opRename:
			if e.From == e.To {
				continue
			}
			convs := make([]string, 0, len(r.tags)+len(derived))
			for c := range r.tags {
				convs = append(convs, c)
			}
			for c := range derived {
				if _, ok := r.tags[c]; !ok {
					convs = append(convs, c)
				}
			}
			for _, c := range convs {
				if r.has(c, e.From) {
					r.tags[c][e.From] = false
					r.tags[c][e.To] = true
					r.setBy[itemKey{c, e.From}] = e.machine
					r.setBy[itemKey{c, e.To}] = e.machine
					if e.machine == own {
						r.ownLast[itemKey{c, e.From}] = ownSet{e.Clock, false}
						r.ownLast[itemKey{c, e.To}] = ownSet{e.Clock, true}
					}
				}
			}
		}
	}
	return r
}

// set gives an item the entry's value, counting a conflict when it
// overrides a different value another machine chose.
func (r *replayed) set(e Entry, k itemKey, on bool) {
	var was bool
	if k.project == "" {
		was = r.stars[k.conv]
	} else {
		was = r.has(k.conv, k.project)
	}
	if by, ok := r.setBy[k]; ok && by != e.machine && was != on {
		r.conflicts++
	}
	r.setBy[k] = e.machine
	if e.machine == r.own {
		r.ownLast[k] = ownSet{e.Clock, on}
	}
	if k.project == "" {
		r.stars[k.conv] = on
		return
	}
	r.tags[k.conv][k.project] = on
}

// has says whether conversation c has project p so far, and makes sure
// r.tags holds c (starting from its derived project).
func (r *replayed) has(c, p string) bool {
	t, ok := r.tags[c]
	if !ok {
		t = map[string]bool{}
		if d := r.derived[c]; d != "" {
			t[d] = true
		}
		r.tags[c] = t
	}
	return t[p]
}

// journaledHere says whether this machine has journaled the item's value
// on after the clock stood at since.
func (r *replayed) journaledHere(k itemKey, on bool, since Clock) bool {
	o, ok := r.ownLast[k]
	return ok && o.on == on && since.Less(o.at)
}

// tagsOf is a conversation's projects as the journals leave them, sorted.
func (r *replayed) tagsOf(c string) []string {
	t, ok := r.tags[c]
	if !ok {
		if d := r.derived[c]; d != "" {
			return []string{d}
		}
		return nil
	}
	var out []string
	for p, on := range t {
		if on {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// starOf is a conversation's star as the journals leave it.
func (r *replayed) starOf(c string) bool { return r.stars[c] }
