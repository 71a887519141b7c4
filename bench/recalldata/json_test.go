package recalldata

import (
	"encoding/json"
	"testing"
)

// TestAppendJSON checks the writers' encoder against encoding/json.
func TestAppendJSON(t *testing.T) {
	v := ordered{{"s", "a \"q\" \\ <b> & \n\t\r \x01 \u2028 é 💡"}, {"n", nil}, {"b", true}, {"i", 42},
		{"f", 1765470295.123456}, {"l", []ordered{{{"x", []string{"a", "b"}}}}}, {"e", []any{}}, {"m", ordered{}}}
	got := marshal(v)
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	want := `{"s":"a \"q\" \\ <b> & \n\t\r \u0001 \u2028 é 💡","n":null,"b":true,"i":42,"f":1765470295.123456,"l":[{"x":["a","b"]}],"e":[],"m":{}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	json.Unmarshal([]byte(want), &b)
}
