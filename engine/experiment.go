//go:build enginexp

package engine

import (
	"os"
	"strconv"
)

// A build with the enginexp tag reads the default passage weight and the
// identifiers field's b from IRENEO_X_PASSAGE and IRENEO_X_IDSB, for the
// bench to measure them without a code change; no release is built so.
func init() {
	experiment = func(p *Params) {
		if v, err := strconv.ParseFloat(os.Getenv("IRENEO_X_PASSAGE"), 64); err == nil {
			p.Passage = v
		}
		if v, err := strconv.ParseFloat(os.Getenv("IRENEO_X_IDSB"), 64); err == nil {
			p.Fields[IDs].B = v
		}
	}
}
