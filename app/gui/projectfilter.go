package gui

import (
	"fmt"

	"fyne.io/fyne/v2/widget"
	"github.com/ireneo-app/ireneo/answer"
)

// The project filter of Search and Conversations. Agents get a project
// plus the untagged conversations (the recall contract); a person browsing
// needs to see which is which, so each project is offered both ways, said
// in words, beside the untagged conversations on their own.

// projectChoice is what one option of the filter selects.
type projectChoice struct {
	project  string // "" with untagged false: every conversation
	only     bool   // the project without the untagged conversations
	untagged bool   // only the conversations with no project
}

// label is the option's text: what it selects and how many conversations.
func (c projectChoice) label(count int) string {
	switch {
	case c.untagged:
		return fmt.Sprintf("%s (%d)", untaggedOption, count)
	case c.project == "":
		return anyProject
	case c.only:
		return fmt.Sprintf("only %s (%d)", c.project, count)
	}
	return fmt.Sprintf("%s + untagged (%d)", c.project, count)
}

type projectFilter struct {
	sel     *widget.Select
	choices map[string]projectChoice
	cur     projectChoice
	// names are the projects listed, in the memory's order.
	names []string
}

func newProjectFilter(onChanged func()) *projectFilter {
	f := &projectFilter{choices: map[string]projectChoice{anyProject: {}}}
	f.sel = newSelect([]string{anyProject}, anyProject, nil)
	f.sel.OnChanged = func(o string) {
		f.cur = f.choices[o]
		if onChanged != nil {
			onChanged()
		}
	}
	return f
}

// set lists the memory's projects, keeping the current choice when its
// project still exists. It does not call onChanged.
func (f *projectFilter) set(ps []answer.ProjectCount, untagged int) {
	opts := []string{anyProject, projectChoice{untagged: true}.label(untagged)}
	f.choices = map[string]projectChoice{anyProject: {}, opts[1]: {untagged: true}}
	f.names = f.names[:0]
	selected, keep := anyProject, f.cur == projectChoice{}
	for _, p := range ps {
		f.names = append(f.names, p.Name)
		for _, c := range []projectChoice{{project: p.Name}, {project: p.Name, only: true}} {
			n := p.Count
			if !c.only {
				n += untagged
			}
			o := c.label(n)
			opts = append(opts, o)
			f.choices[o] = c
			if c == f.cur {
				selected, keep = o, true
			}
		}
	}
	if f.cur.untagged {
		selected, keep = opts[1], true
	}
	if !keep {
		f.cur = projectChoice{}
	}
	f.sel.Options = opts
	f.sel.Selected = selected
	f.sel.Refresh()
}

// follow points the filter at a renamed project before the list reloads.
func (f *projectFilter) follow(from, to string) {
	if f.cur.project == from {
		f.cur.project = to
	}
}

// choose selects an option by what it means, as a person picking it would
// (onChanged runs); false if the filter has no such option.
func (f *projectFilter) choose(c projectChoice) bool {
	for o, oc := range f.choices {
		if oc == c {
			f.sel.SetSelected(o)
			return true
		}
	}
	return false
}

// reset selects every conversation, without calling onChanged.
func (f *projectFilter) reset() {
	f.cur = projectChoice{}
	f.sel.Selected = anyProject
	f.sel.Refresh()
}
