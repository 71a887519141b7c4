package answer

import (
	"bytes"
	"encoding/json"
)

// CLIJSON is a --json answer as the CLI prints it: indented, HTML left
// as it is, a newline at the end.
func CLIJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// withMarker is v's JSON object with the marker field first: an answer
// whose fields are another type's (an audit entry, a report).
func withMarker(v any) ([]byte, error) {
	inner, err := json.Marshal(v)
	if err != nil || len(inner) < 2 || inner[0] != '{' {
		return inner, err
	}
	mk, _ := json.Marshal(map[string]string{MarkerField: Marker})
	if string(inner) == "{}" {
		return mk, nil
	}
	return append(append(mk[:len(mk)-1:len(mk)-1], ','), inner[1:]...), nil
}
