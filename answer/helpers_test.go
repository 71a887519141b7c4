package answer

import "github.com/ireneo-app/ireneo/o200k"

// countTokens is the o200k count the callers pass.
var countTokens Count = o200k.Count
