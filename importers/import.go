package importers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memscrub"
)

// Options tunes an import.
type Options struct {
	// IncludeForgotten brings back conversations the person forgot.
	IncludeForgotten bool
	// Redact, if set, edits each session before it is stored and returns
	// its redactions per rule id.
	Redact func(*funes.Session) map[string]int
	// Progress, if set, is called as the import goes. It runs on the
	// importing goroutine: keep it quick.
	Progress func(Progress)
}

// Progress reports an import under way.
type Progress struct {
	Input string // the input being read
	Phase string // PhaseDetect, PhaseRead, PhaseCommit or PhasePack
	// Done and Total count bytes while reading and conversations while
	// committing; Total is 0 when unknown.
	Done, Total int64
	Sessions    int // conversations found in this input so far
}

// Import phases.
const (
	PhaseDetect = "detect"
	PhaseRead   = "read"
	PhaseCommit = "commit"
	PhasePack   = "pack" // the index is rewritten full after it grew (memory.Grown)
)

// Failure names an input (or a conversation in one) and what is wrong.
type Failure struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Lines counts the lines of the input this skip stands for, when what
	// was left out is lines that could not be read.
	Lines int `json:"lines,omitempty"`
}

// Summary says what an import did.
type Summary struct {
	Inputs    int `json:"inputs"` // input files read (an archive counts once)
	New       int `json:"new"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	Forgotten int `json:"forgotten"` // skipped because the person forgot them
	Older     int `json:"older"`     // skipped as older copies of what is stored
	Failed    int `json:"failed"`    // inputs that changed nothing because they are bad
	// Failures says why each failed input failed.
	Failures []Failure `json:"failures,omitempty"`
	// Skipped names conversations left out of inputs that were otherwise
	// imported.
	Skipped []Failure `json:"skipped,omitempty"`
	// UnreadableLines counts the lines of inputs that were imported but
	// could not be read (not UTF-8, not JSON, over funes.MaxLineBytes):
	// left out, each input's named in Skipped.
	UnreadableLines int            `json:"unreadable_lines,omitempty"`
	Redacted        map[string]int `json:"redacted,omitempty"`
}

func (s *Summary) fail(path string, err error) {
	s.Failed++
	s.Failures = append(s.Failures, Failure{Path: path, Reason: err.Error()})
}

func (s *Summary) add(r memory.IngestReport) {
	s.New += r.New
	s.Updated += r.Updated
	s.Unchanged += r.Unchanged
	s.Forgotten += r.Forgotten
	s.Older += r.Older
	s.Redacted = mergeCounts(s.Redacted, r.Redacted)
}

// Merge adds another summary to s (the watcher sums its imports this way).
func (s *Summary) Merge(o Summary) {
	s.Inputs += o.Inputs
	s.New += o.New
	s.Updated += o.Updated
	s.Unchanged += o.Unchanged
	s.Forgotten += o.Forgotten
	s.Older += o.Older
	s.Failed += o.Failed
	s.Failures = append(s.Failures, o.Failures...)
	s.Skipped = append(s.Skipped, o.Skipped...)
	s.UnreadableLines += o.UnreadableLines
	s.Redacted = mergeCounts(s.Redacted, o.Redacted)
}

// Run imports everything found at paths into m. Each input file (an
// archive counts as one) is staged and committed all or nothing: a file
// that cannot be read to the end changes nothing and is named in
// Failures, and the other inputs go on. A conversation that cannot be
// read inside a good export is left out and named in Skipped. Run returns
// an error only when nothing at all could be read, or when ctx ends.
func Run(ctx context.Context, m *memory.Memory, paths []string, opts Options) (Summary, error) {
	var sum Summary
	// The scrub history records what import-time scrubbing redacted, counts
	// only, whatever way the run ends.
	defer func() {
		if len(sum.Redacted) > 0 {
			memscrub.RecordHistory(context.WithoutCancel(ctx), m, sum.Redacted)
		}
	}()
	// Small inputs are committed a transaction's worth at a time.
	g := newGroupCommit(m, &sum, opts.Progress)
	defer g.discard(ctx)
	found := 0
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		if opts.Progress != nil {
			opts.Progress(Progress{Input: p, Phase: PhaseDetect})
		}
		ins, err := Detect(ctx, p)
		if err != nil {
			if ctx.Err() != nil {
				return sum, ctx.Err()
			}
			sum.Inputs++
			sum.fail(p, err)
			continue
		}
		found += len(ins)
		if len(ins) == 0 {
			sum.Skipped = append(sum.Skipped, Failure{Path: p, Reason: "nothing to import in it"})
			continue
		}
		if err := importInputs(ctx, m, g, ins, opts, &sum); err != nil {
			return sum, err
		}
	}
	if err := g.flush(ctx); err != nil {
		return sum, err
	}
	if sum.New+sum.Updated > 0 {
		packIfGrown(ctx, m, opts.Progress)
	}
	switch {
	case sum.Inputs == 0 && found == 0:
		return sum, fmt.Errorf("nothing to import in %s", strings.Join(paths, ", "))
	case sum.Inputs > 0 && sum.Failed == sum.Inputs:
		f := sum.Failures[0]
		return sum, fmt.Errorf("nothing could be imported: %s: %s", f.Path, f.Reason)
	}
	return sum, nil
}

// packIfGrown packs the index once an import has grown it by a tenth
// since it was last packed (memory.Grown). A pack that fails leaves
// the index as large as the import made it, nothing worse, and the next
// import tries again, so its error does not fail the import.
func packIfGrown(ctx context.Context, m *memory.Memory, progress func(Progress)) {
	if !m.Grown(ctx) {
		return
	}
	if progress != nil {
		progress(Progress{Phase: PhasePack})
	}
	m.Pack(ctx)
}

// errDeferred is what a parser returns for an input that copies turns from
// a conversation still to be imported in this run (a resumed Claude Code
// session read before its original): it is read again later.
var errDeferred = errors.New("copies turns from a conversation imported later in this run")

// importInputs imports detected inputs, grouping the entries of one
// archive into one batch.
//
// A resumed Claude Code session copies its original's turns; each turn is
// kept once, where it first happened, which is simplest when the original
// is stored first. So a session whose copies come from a session still to
// be imported waits (with its sub-agent files) for a later round. Rounds
// go on while one stores something; should one store nothing (a cycle),
// the next takes every input as it is. Inputs in other runs are put right
// by the parser instead (it takes copies out of a stored resumed session).
func importInputs(ctx context.Context, m *memory.Memory, gc *groupCommit, ins []Input, opts Options, sum *Summary) error {
	var queue [][]Input
	todo := map[string]int{} // Claude Code session id → its inputs not yet imported
	for i := 0; i < len(ins); {
		j := i + 1
		if ins[i].Archive != "" {
			for j < len(ins) && ins[j].Archive == ins[i].Archive {
				j++
			}
		}
		queue = append(queue, ins[i:j])
		if id := ccSessionOf(ins[i]); id != "" {
			todo[id]++
		}
		i = j
	}
	pending := func(id string) bool { return todo[strings.ToLower(id)] > 0 }
	canDefer := true
	for len(queue) > 0 {
		var later [][]Input
		waiting := map[string]bool{} // sessions deferred in this round
		stored := false
		for _, grp := range queue {
			id := ccSessionOf(grp[0])
			if parent := ccSubagentParent(grp[0]); canDefer && parent != "" && waiting[parent] {
				later = append(later, grp) // with its session, for the parent's project
				continue
			}
			var p func(string) bool
			if canDefer && id != "" {
				p = pending
			}
			err := importGroup(ctx, m, gc, grp, opts, sum, p)
			if errors.Is(err, errDeferred) {
				waiting[id] = true
				later = append(later, grp)
				continue
			}
			if err != nil {
				return err
			}
			stored = true
			if id != "" {
				todo[id]--
			}
		}
		queue, canDefer = later, stored
	}
	return nil
}

// ccSessionOf is the session id a Claude Code session file is named by,
// or "" for any other input.
func ccSessionOf(in Input) string {
	if in.Format != FormatClaudeCode || in.Archive != "" || isSubagentFile(in) {
		return ""
	}
	stem := strings.TrimSuffix(filepath.Base(in.Path), filepath.Ext(in.Path))
	return strings.ToLower(uuidAtEnd.FindString(stem))
}

// ccSubagentParent is the session a 2.1 sub-agent file
// (<session>/subagents/agent-*.jsonl) belongs to, or "".
func ccSubagentParent(in Input) string {
	if !isSubagentFile(in) || in.Archive != "" {
		return ""
	}
	dir := filepath.Dir(in.Path)
	if filepath.Base(dir) != "subagents" {
		return ""
	}
	return strings.ToLower(uuidAtEnd.FindString(filepath.Base(filepath.Dir(dir))))
}

// importGroup imports one input file (or one archive's entries) as one
// batch, which gc commits, maybe with others. It returns an error only for
// cancellation, and errDeferred (with nothing recorded) when pending says
// the input must wait; everything else is recorded in sum.
func importGroup(ctx context.Context, m *memory.Memory, gc *groupCommit, group []Input, opts Options, sum *Summary, pending func(string) bool) error {
	name := group[0].Path
	if group[0].Archive != "" {
		name = group[0].Archive
	}
	sum.Inputs++
	for _, in := range group {
		if in.Err != nil {
			sum.fail(in.Path, in.Err)
			return nil
		}
	}
	b, err := m.NewBatch(memory.IngestOptions{IncludeForgotten: opts.IncludeForgotten, Redact: opts.Redact})
	if err != nil {
		sum.fail(name, fmt.Errorf("cannot stage the import: %w", err))
		return nil
	}
	var skipped []Failure
	var allSkipped *Failure // an input none of whose conversations could be read
	sessions := 0
	var staged []*funes.Session
	var za *archive
	if group[0].Archive != "" {
		// One archive, opened and its directory read once for all its entries.
		if za, err = openArchive(group[0].Archive); err != nil {
			b.Discard()
			sum.fail(name, err)
			return nil
		}
		defer za.Close()
	}
	for _, in := range group {
		err := parseInput(ctx, in, za, opts, b, gc, pending, &sessions, &skipped, &staged)
		if errors.Is(err, errDeferred) {
			b.Discard()
			sum.Inputs--
			return err
		}
		if errors.Is(err, errNoConversation) {
			continue // one empty shard or transcript: nothing to add
		}
		if isAllSkipped(err) {
			// Its conversations are in skipped already; fatal only if the
			// other files of the archive hold nothing either.
			if allSkipped == nil {
				allSkipped = &Failure{Path: in.Path, Reason: err.Error()}
			}
			continue
		}
		if err != nil {
			b.Discard()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			sum.fail(in.Path, err)
			return nil
		}
	}
	if sessions == 0 {
		b.Discard()
		switch {
		case allSkipped != nil:
			sum.fail(allSkipped.Path, errors.New(allSkipped.Reason))
		case len(skipped) > 0:
			sum.fail(name, fmt.Errorf("no conversation could be read (%s: %s)", skipped[0].Path, skipped[0].Reason))
		case group[0].inWalk && group[0].Archive == "":
			sum.Inputs-- // a transcript with nothing in it yet: not an input worth counting
		case group[0].Format == FormatCodex || group[0].Format == FormatClaudeCode:
			sum.fail(name, errors.New("no conversation in it yet (an empty or just-started session)"))
		default:
			sum.fail(name, errEmptyExport)
		}
		return nil
	}
	return gc.add(ctx, b, name, skipped, staged)
}

// parseInput reads one input into the batch.
func parseInput(ctx context.Context, in Input, za *archive, opts Options, b *memory.Batch, gc *groupCommit, pending func(string) bool, sessions *int, skipped *[]Failure, staged *[]*funes.Session) error {
	parse := parsers[in.Format]
	if parse == nil {
		return fmt.Errorf("no importer for format %q", in.Format)
	}
	var rc io.ReadCloser
	var err error
	if za != nil && in.Archive != "" {
		rc, err = za.open(in.entry)
	} else {
		rc, err = in.Open()
	}
	if err != nil {
		return fmt.Errorf("cannot read: %w", unwrapPathErr(err))
	}
	defer rc.Close()
	h := Handler{
		Session: func(s *funes.Session) error {
			if gc.holds(s.Harness, s.ID) {
				// Held by an earlier input: store that first, so this
				// copy is told apart from it as from any stored one.
				if err := gc.flush(ctx); err != nil {
					return err
				}
			}
			if err := b.Add(ctx, s); err != nil {
				var big *memory.TurnTooLargeError
				if errors.As(err, &big) {
					// Left out, named; the rest of the input goes in.
					*skipped = append(*skipped, Failure{Path: in.Path + ": conversation " + s.ID, Reason: err.Error()})
					return nil
				}
				return fmt.Errorf("conversation %s: %w", s.ID, err)
			}
			if b.Holds(s.Harness, s.ID) {
				*staged = append(*staged, s)
			}
			*sessions++
			return nil
		},
		Skip: func(what, reason string) {
			*skipped = append(*skipped, Failure{Path: in.Path + ": " + what, Reason: reason})
		},
		Unreadable: func(lines int, first string) {
			*skipped = append(*skipped, Failure{Path: in.Path + ": " + unreadableLines(lines), Reason: first, Lines: lines})
		},
		Lookup:  gc,
		Pending: pending,
	}
	if in.Archive == "" {
		h.Path = in.file
	}
	if opts.Progress != nil {
		h.Progress = func(read int64) {
			opts.Progress(Progress{Input: in.Path, Phase: PhaseRead, Done: read, Total: in.Size, Sessions: *sessions})
		}
	}
	return parse(ctx, rc, in.Path, h)
}

// mergeCounts adds b's counts into a.
func mergeCounts(a, b map[string]int) map[string]int {
	if len(b) == 0 {
		return a
	}
	if a == nil {
		a = map[string]int{}
	}
	for k, v := range b {
		a[k] += v
	}
	return a
}
