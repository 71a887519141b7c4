package clients

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/tailscale/hujson"
)

// FuzzMergeJSON: merging into any JSON document never panics, and a merge
// that succeeds keeps every top-level key and holds Ireneo's entry.
func FuzzMergeJSON(f *testing.F) {
	for _, s := range sampleConfigs {
		f.Add(s)
	}
	f.Add(`{}`)
	f.Add(`{"mcpServers": null}`)
	f.Add(`{"mcpServers": []}`)
	f.Add(`{"a":1,"a":2}`)
	f.Fuzz(func(t *testing.T, doc string) {
		entry := json.RawMessage(`{"url":"http://127.0.0.1:47119/mcp"}`)
		out, _, err := mergeJSON([]byte(doc), "mcpServers", entry)
		if err != nil {
			return
		}
		var after map[string]json.RawMessage
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("merged output is not JSON: %v\n%s", err, out)
		}
		var servers map[string]json.RawMessage
		if err := json.Unmarshal(after["mcpServers"], &servers); err != nil || servers[ServerName] == nil {
			t.Fatalf("no entry after merge:\n%s", out)
		}
		var before map[string]json.RawMessage
		if json.Unmarshal([]byte(doc), &before) == nil {
			for k := range before {
				if _, ok := after[k]; !ok {
					t.Fatalf("lost key %q", k)
				}
			}
		}
	})
}

// FuzzMergeTOML: merging into any TOML document never panics, and a merge
// that succeeds parses and holds Ireneo's table.
func FuzzMergeTOML(f *testing.F) {
	f.Add(sampleConfigs[ClientCodex])
	f.Add("")
	f.Add("[mcp_servers]\nireneo = { url = \"x\" }\n")
	f.Add("[mcp_servers.\"ireneo\"]\nurl = \"x\"\n[other]\n")
	f.Add("a = '''\n[mcp_servers.ireneo]\n'''\n")
	snippet := "[mcp_servers.ireneo]\nurl = \"http://127.0.0.1:47119/mcp\"\n"
	f.Fuzz(func(t *testing.T, doc string) {
		out, _, err := mergeTOML([]byte(doc), snippet)
		if err != nil {
			return
		}
		var after map[string]any
		if _, err := toml.Decode(string(out), &after); err != nil {
			t.Fatalf("merged output is not TOML: %v\n%s", err, out)
		}
		srv, _ := after["mcp_servers"].(map[string]any)
		ent, _ := srv[ServerName].(map[string]any)
		if ent["url"] != "http://127.0.0.1:47119/mcp" {
			t.Fatalf("no entry after merge:\n%s", out)
		}
	})
}

// FuzzMergeJSONC: merging into any JSON-with-comments document never
// panics, and a merge that succeeds reads back, comments stripped, as JSON
// holding Ireneo's entry.
func FuzzMergeJSONC(f *testing.F) {
	f.Add(sampleConfigs[ClientVSCode])
	f.Add("// c\n{\"servers\": {\"a\": {},}, /* x */ \"inputs\": [],}\n")
	f.Add(`{"servers": null}`)
	f.Add(`{"servers": 3}`)
	f.Add(`{"servers": {"ireneo": 1, "ireneo": 2}}`)
	f.Add(`{"a/b~c": {}}`)
	f.Add(`{"servers": {}, "servers": 5}`)
	f.Add("")
	f.Fuzz(func(t *testing.T, doc string) {
		entry := json.RawMessage(`{"type":"http","url":"http://127.0.0.1:47119/mcp"}`)
		out, _, err := mergeJSONC([]byte(doc), "servers", entry)
		if err != nil {
			return
		}
		std, err := hujson.Standardize(bytes.Clone(out))
		if err != nil {
			t.Fatalf("merged output is not JSONC: %v\n%s", err, out)
		}
		// Maps, not a struct: encoding/json matches struct fields ignoring
		// case, a JSON reader does not.
		var after, servers map[string]json.RawMessage
		err = json.Unmarshal(std, &after)
		json.Unmarshal(after["servers"], &servers)
		var got, want any
		json.Unmarshal(servers[ServerName], &got)
		json.Unmarshal(entry, &want)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("entry not as written after merge (%v):\n%s", err, out)
		}
	})
}
