package cli

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/memscrub"
	"github.com/ireneo-app/ireneo/redact"
)

func init() { register(newScrubCmd) }

func newScrubCmd(g *globals) *cobra.Command {
	var asJSON, apply bool
	var rules, sessions, allow []string
	c := &cobra.Command{
		Use:   "scrub [--json] [--apply] [--rule R]... [--session S]... [--allow ID]...",
		Short: "Find secrets in the memory; redact them with --apply",
		Long: `Scan every stored conversation for secrets (API keys, tokens, private keys,
passwords in URLs and in sentences, and your own patterns from the settings)
in conversations, their titles and working directories, and in the queries
agents made (the audit log), and list them with
a masked preview; the secrets themselves are never shown.

With --apply, replace each one with [REDACTED:<rule>]: the conversation files
are rewritten, the search index updated, and the old bytes erased the way
forget erases them. --rule and --session narrow what is listed and redacted.
--allow ID marks a finding as a false positive: it is remembered (as a hash,
not the secret) and not reported or redacted again.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			sc, err := g.newScrubber()
			if err != nil {
				return err
			}
			for _, r := range rules {
				if !sc.HasRule(r) {
					return usagef("scrub --rule %q: no such rule (rules are named in the report, e.g. aws-access-token)", r)
				}
			}
			m, err := g.open()
			if err != nil {
				return err
			}
			defer m.Close()
			o := memscrub.Options{Finder: sc, Rules: rules, Sessions: sessions, Allow: allow}
			if isTerminal(g.stderr) && !asJSON {
				o.Progress = scrubProgress(g.stderr)
				defer fmt.Fprint(g.stderr, "\r\033[K")
			}
			run := memscrub.Scan
			if apply {
				run = memscrub.Apply
			}
			rep, err := run(c.Context(), m, o)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(g.stdout, rep)
			}
			printScrubReport(g.stdout, rep)
			return nil
		},
	}
	f := c.Flags()
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.BoolVar(&apply, "apply", false, "redact the findings")
	f.StringArrayVar(&rules, "rule", nil, "only this rule (repeatable)")
	f.StringArrayVar(&sessions, "session", nil, "only this conversation, by id or source:id (repeatable)")
	f.StringArrayVar(&allow, "allow", nil, "mark the finding with this id as a false positive (repeatable)")
	return c
}

// scrubProgress redraws "scanning n of N" on a terminal, at most every
// hundred conversations.
func scrubProgress(w io.Writer) func(done, total int) {
	return func(done, total int) {
		if done%100 == 0 || done == total {
			fmt.Fprintf(w, "\r\033[Kscanning %d of %d conversations", done, total)
		}
	}
}

// printScrubReport lists the findings and ends with what was redacted, per rule.
func printScrubReport(w io.Writer, rep memscrub.Report) {
	fmt.Fprintf(w, "scanned %s", plural(rep.Scanned, "conversation", "conversations"))
	if rep.AuditScanned > 0 {
		fmt.Fprintf(w, " and %s of the audit log", plural(rep.AuditScanned, "call", "calls"))
	}
	fmt.Fprintln(w)
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "could not read %s\n", s)
	}
	if len(rep.Findings) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tRULE\tCONVERSATION\tTURN\tBLOCK\tAT\tSECRET")
		for _, f := range rep.Findings {
			conv, turn, block := f.Source+":"+f.SessionID, fmt.Sprint(f.Seq), fmt.Sprint(f.Block)
			switch {
			case f.Field == memscrub.FieldAudit:
				conv, turn, block = "audit log", fmt.Sprintf("call %d", f.AuditID), "-"
			case f.Block < 0:
				turn, block = f.Field, "-"
			case f.Field != redact.FieldText:
				block += " " + f.Field
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", f.ID, f.Rule, conv, turn, block, f.Start, f.Preview)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "%s", plural(len(rep.Findings), "finding", "findings"))
	if rep.Allowed > 0 {
		fmt.Fprintf(w, " (%s hidden as allowed false positives)", plural(rep.Allowed, "more", "more"))
	}
	fmt.Fprintln(w)
	if rep.NewlyAllowed > 0 {
		fmt.Fprintf(w, "allowed %s as false positives; they will not be reported again\n", plural(rep.NewlyAllowed, "finding", "findings"))
	}
	if !rep.Applied {
		if len(rep.Findings) > 0 {
			fmt.Fprintln(w, "redacted: nothing yet (`ireneo scrub --apply` redacts these; --allow ID marks a false positive)")
		} else {
			fmt.Fprintln(w, "redacted: nothing")
		}
		return
	}
	if len(rep.Redacted) == 0 {
		fmt.Fprintln(w, "redacted: nothing")
		return
	}
	fmt.Fprintf(w, "redacted in %s", plural(rep.Changed, "conversation", "conversations"))
	if rep.AuditChanged > 0 {
		fmt.Fprintf(w, " and %s of the audit log", plural(rep.AuditChanged, "call", "calls"))
	}
	fmt.Fprintln(w, ", per rule:")
	rules := make([]string, 0, len(rep.Redacted))
	for r := range rep.Redacted {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rules {
		fmt.Fprintf(tw, "  %s\t%d\n", r, rep.Redacted[r])
	}
	tw.Flush()
}
