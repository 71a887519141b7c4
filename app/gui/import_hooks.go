package gui

import (
	"context"
	"strings"
	"time"

	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	capturehooks "github.com/ireneo-app/ireneo/capture"
	"github.com/ireneo-app/ireneo/clients"
	"github.com/ireneo-app/ireneo/importers"
)

// hooksReport is what the Import screen says about capture hooks.
type hooksReport struct {
	states  []clients.HookState
	problem *capturehooks.LogLine
	warning string
}

// refreshHooks reads the hooks' state, the hook log and Claude Code's
// folder off the UI goroutine.
func (s *importScreen) refreshHooks() {
	o := s.u.connect.hookOptions()
	dir := s.u.mem.Dir()
	homes := s.u.deps.ToolHomes
	load(s.u, "check the capture hooks", func(ctx context.Context) (hooksReport, error) {
		var r hooksReport
		for _, client := range clients.HookClientsHere(o) {
			r.states = append(r.states, clients.HooksInstalled(client, o))
		}
		// The last problem among the recent lines, as status shows it (in
		// the memory's log or, when the memory could not be written, its
		// fallback), not only a problem that is the very last line.
		if lines, err := capturehooks.ReadLog(dir, 50); err == nil {
			for i := len(lines) - 1; i >= 0 && r.problem == nil; i-- {
				if lines[i].Error {
					r.problem = &lines[i]
				}
			}
		}
		if days, err := clients.ClaudeCodeCleanupDays(o); err == nil {
			for _, l := range importers.DefaultLocations(homes) {
				if l.What != "Claude Code projects" {
					continue
				}
				if risk, err := capturehooks.SessionsAtRisk(ctx, s.u.mem, l.Path, days, time.Now()); err == nil && risk.AtRisk > 0 {
					r.warning = risk.Warning(l.Path)
					break
				}
			}
		}
		// Gemini CLI deletes old sessions too (general.sessionRetention).
		if on, age, err := clients.GeminiRetention(o); r.warning == "" && err == nil && on {
			for _, l := range importers.DefaultLocations(homes) {
				if l.What == importers.WhatGeminiCLI {
					if risk, err := capturehooks.GeminiSessionsAtRisk(ctx, s.u.mem, l.Path, age, time.Now()); err == nil {
						r.warning = risk.Warning(l.Path)
					}
				}
			}
		}
		return r, nil
	}, s.showHooks)
}

func (s *importScreen) showHooks(r hooksReport) {
	var parts []string
	for _, st := range r.states {
		name := clientNames[st.Client]
		switch {
		case st.Problem != "":
			parts = append(parts, name+": cannot tell ("+st.Problem+")")
		case st.Installed:
			parts = append(parts, name+": installed")
		default:
			parts = append(parts, name+": not installed")
		}
	}
	text := "Capture hooks (import each session as it ends, even with this app closed): " + strings.Join(parts, " · ") + "."
	if !allInstalled(r.states) {
		text += " Set them up with Write to config… on the Connect screen."
	}
	segs := []widget.RichTextSegment{&widget.TextSegment{Text: text, Style: widget.RichTextStyle{ColorName: theme.ColorNamePlaceHolder}}}
	if r.problem != nil {
		segs = append(segs, &widget.TextSegment{Text: "Last hook problem (" + stamp(r.problem.Time) + "): " + r.problem.Text,
			Style: widget.RichTextStyle{ColorName: theme.ColorNameWarning}})
	}
	if r.warning != "" {
		segs = append(segs, &widget.TextSegment{Text: r.warning, Style: widget.RichTextStyle{ColorName: theme.ColorNameWarning}})
	}
	s.hooksLine.Segments = segs
	s.hooksLine.Refresh()
}

func allInstalled(states []clients.HookState) bool {
	for _, st := range states {
		if !st.Installed {
			return false
		}
	}
	return true
}
