package answer

// Marker begins the text of every answer Ireneo gives and is the MarkerField
// field of every structured one: it lets a later import know Ireneo's own
// output under any server name. An agent reads it as a plain label. Never
// change it: memories hold answers written with it.
const Marker = "[ireneo-result]"

// MarkerField is the structured answers' field that holds Marker.
const MarkerField = "marker"

// ForgottenText stands where a forgotten conversation's quote was erased.
const ForgottenText = "[forgotten]"

// Count counts a text's tokens as the budget does (o200k): the caller's
// counter, so this package stays a leaf.
type Count func(string) int
