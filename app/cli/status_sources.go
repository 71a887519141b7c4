package cli

import (
	"context"
	"time"

	"github.com/ireneo-app/ireneo/capture"
	"github.com/ireneo-app/ireneo/clients"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
)

// geminiRisk is what `status` says about Gemini CLI's session retention
// (general.sessionRetention, on by default: 30 days): the sessions it will
// delete within a week that are not in the memory, and a warning naming
// them; nil and "" when Gemini CLI is not here or deletes nothing.
func geminiRisk(ctx context.Context, m *memory.Memory) (*capture.GeminiRisk, string) {
	on, maxAge, err := clients.GeminiRetention(clients.ConnectOptions{})
	if err != nil || !on {
		return nil, ""
	}
	var risk *capture.GeminiRisk
	warning := ""
	for _, l := range importers.DefaultLocations(importers.Homes{}) {
		if l.What != importers.WhatGeminiCLI {
			continue
		}
		r, err := capture.GeminiSessionsAtRisk(ctx, m, l.Path, maxAge, time.Now())
		if err != nil {
			continue
		}
		if risk == nil {
			risk = &r
			warning = r.Warning(l.Path)
		}
	}
	return risk, warning
}
