package scrub

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	gre "github.com/zricethezav/gitleaks/v8/regexp"
)

// userRule is one of the person's patterns, compiled with gitleaks' regexp
// backend so that it gets RE2's speed when built with gore2regex.
type userRule struct {
	id string
	re *gre.Regexp
	// lit is a literal every match contains, if the regex has one: texts
	// without it are skipped, since a regex with no literal prefix costs a
	// full pass over the text.
	lit  string
	fold bool // lit is lowercase and matched ignoring ASCII case
}

// newUserRule checks and compiles a pattern; taken holds the rule ids
// already in use.
func newUserRule(p Pattern, taken map[string]bool) (userRule, error) {
	name := strings.TrimSpace(p.Name)
	if !ruleNameRe.MatchString(name) {
		return userRule{}, fmt.Errorf("scrub pattern %q: a name is 1-64 letters, digits, '.', '_' or '-'", p.Name)
	}
	if taken[name] {
		return userRule{}, fmt.Errorf("scrub pattern %q: the name is already a rule", name)
	}
	if strings.TrimSpace(p.Regex) == "" {
		return userRule{}, fmt.Errorf("scrub pattern %q: empty regex", name)
	}
	re, err := compileBackend(p.Regex)
	if err != nil {
		return userRule{}, fmt.Errorf("scrub pattern %q: %w", name, err)
	}
	ur := userRule{id: name, re: re}
	ur.lit, ur.fold = requiredLiteral(p.Regex)
	return ur, nil
}

// appendUserMatches runs the person's patterns over text.
func (s *Scrubber) appendUserMatches(ms []Match, text string) []Match {
	var low string
	for _, r := range s.user {
		if r.lit != "" {
			if r.fold && low == "" {
				low = asciiLower(text)
			}
			if r.fold && !strings.Contains(low, r.lit) || !r.fold && !strings.Contains(text, r.lit) {
				continue
			}
		}
		for _, loc := range r.re.FindAllStringSubmatchIndex(text, -1) {
			if st, en := secretGroup(loc); st >= 0 && st < en {
				ms = append(ms, Match{Rule: r.id, Start: st, End: en})
			}
		}
	}
	return ms
}

// compileBackend compiles a person's regex with gitleaks' regexp backend.
// Go's parser checks it first, for a clear error: both backends take RE2
// syntax, and the backend's MustCompile panics.
func compileBackend(expr string) (re *gre.Regexp, err error) {
	if _, err := regexp.Compile(expr); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("invalid regex: %v", r)
		}
	}()
	return gre.MustCompile(expr), nil
}

// requiredLiteral finds the longest literal that every match of expr
// contains: a literal that is a direct part of the top-level sequence, or
// of a group in it. A case-insensitive literal only counts if it is ASCII
// with no 'k' or 's' (Unicode folds those to the Kelvin sign and the long s).
func requiredLiteral(expr string) (lit string, fold bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", false
	}
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpCapture:
			walk(re.Sub[0])
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				walk(sub)
			}
		case syntax.OpLiteral:
			l, f := string(re.Rune), re.Flags&syntax.FoldCase != 0
			if f {
				if strings.ContainsAny(strings.ToLower(l), "ks") || !isASCII(l) {
					return
				}
				l = strings.ToLower(l)
			}
			if len(l) > len(lit) {
				lit, fold = l, f
			}
		}
	}
	walk(re)
	return lit, fold
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// secretGroup picks the secret's span from a submatch index: the first
// non-empty capture group, else the whole match (gitleaks' convention).
func secretGroup(loc []int) (int, int) {
	for i := 2; i+1 < len(loc); i += 2 {
		if loc[i] >= 0 && loc[i+1] > loc[i] {
			return loc[i], loc[i+1]
		}
	}
	return loc[0], loc[1]
}
