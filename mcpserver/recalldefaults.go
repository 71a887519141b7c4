package mcpserver

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/mark3labs/mcp-go/mcp"
)

// recallDefaults are what recall (and, for the budget, sessions) use when
// an agent names no top_k or token_budget: the person's default_top_k and
// default_token_budget. They live apart from Options so that the settings
// screen can change them while the server runs.
type recallDefaults struct{ k, budget int }

// recallDefaults takes them from Options after withDefaults.
func (o Options) recallDefaults() recallDefaults {
	return recallDefaults{k: o.DefaultTopK, budget: o.DefaultTokenBudget}
}

// SetRecallDefaults changes what recall returns when an agent names no
// top_k or token_budget, as the settings screen does, and tells clients the
// new defaults in the tool's description.
func (s *Server) SetRecallDefaults(k, budget int) {
	d := Options{DefaultTopK: k, DefaultTokenBudget: budget, Logger: s.log}.withDefaults().recallDefaults()
	s.defaults.Store(&d)
	s.addRecallTool()
	s.addSessionsTool()
}

func (s *Server) recallDefaults() recallDefaults { return *s.defaults.Load() }

// RecallDefaults are the top_k and token_budget recall uses when an agent
// names none.
func (s *Server) RecallDefaults() (k, budget int) {
	d := s.recallDefaults()
	return d.k, d.budget
}

// defaultInText is the "(default N" of an argument's description.
var defaultInText = regexp.MustCompile(`\(default \d+`)

// withRecallDefaultsText writes the current defaults into the descriptions
// of top_k and token_budget (recall's, and sessions' budget), so an agent
// reads the numbers it will get.
func withRecallDefaultsText(d recallDefaults) mcp.ToolOption {
	return func(t *mcp.Tool) {
		var schema map[string]any
		if json.Unmarshal(t.RawInputSchema, &schema) != nil {
			return
		}
		props, _ := schema["properties"].(map[string]any)
		for name, def := range map[string]int{"top_k": d.k, "token_budget": d.budget} {
			if p, ok := props[name].(map[string]any); ok {
				if text, ok := p["description"].(string); ok {
					p["description"] = defaultInText.ReplaceAllLiteralString(text, fmt.Sprintf("(default %d", def))
				}
			}
		}
		if raw, err := json.Marshal(schema); err == nil {
			t.RawInputSchema = raw
		}
	}
}
