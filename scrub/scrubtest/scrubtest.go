// Package scrubtest holds the fake secrets and the conversation-like text
// generator that the tests and benchmarks of scrub, memory and app share.
//
// The fake secrets are built at run time, by concatenation and from a
// seeded generator, so this repository's own source never trips a secret
// scanner. They have the shapes of real keys and none is real. The package
// imports nothing of ours, so any package's tests may use it.
package scrubtest

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// FakeRand returns n characters from alphabet, the same on every run.
func FakeRand(seed uint64, n int, alphabet string) string {
	r := rand.New(rand.NewPCG(seed, 0x1e4e0))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// Alphabets for fake secrets.
const (
	Alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	Base32  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	KeyBody = Alnum + "+/"
)

// The person's own pattern the tests use: an internal hostname.
const (
	HostRule  = "internal-host"
	HostRegex = `\b[a-z0-9-]+\.corp\.ireneo-internal\.net\b`
)

// Planted is one fake secret: the rule that must find it, the secret, and
// the markers that must not survive in any file once it is redacted.
type Planted struct {
	Rule    string
	Secret  string
	Markers []string
}

// GrepMarkers are the strings a test greps for: the markers, else the
// secret itself.
func (p Planted) GrepMarkers() []string {
	if len(p.Markers) > 0 {
		return p.Markers
	}
	return []string{p.Secret}
}

// Secrets returns one fake secret per kind, keyed by a short name: aws,
// github, openai, anthropic, privkey, pgpass (a password in a URL) and host
// (the HostRule pattern).
func Secrets() map[string]Planted {
	var keyLines []string
	for i := range 6 {
		keyLines = append(keyLines, FakeRand(uint64(10+i), 64, KeyBody))
	}
	privKey := "-----BEGIN " + "RSA PRIVATE" + " KEY-----\n" + strings.Join(keyLines, "\n") + "\n-----END RSA " + "PRIVATE KEY-----"
	return map[string]Planted{
		"aws":       {Rule: "aws-access-token", Secret: "AK" + "IA" + FakeRand(1, 16, Base32)},
		"github":    {Rule: "github-pat", Secret: "gh" + "p_" + FakeRand(2, 36, Alnum)},
		"openai":    {Rule: "openai-api-key", Secret: "sk-" + "proj-" + FakeRand(3, 74, Alnum) + "T3Blbk" + "FJ" + FakeRand(4, 74, Alnum)},
		"anthropic": {Rule: "anthropic-api-key", Secret: "sk-ant-" + "api03-" + FakeRand(5, 93, Alnum) + "AA"},
		"privkey":   {Rule: "private-key", Secret: privKey, Markers: keyLines},
		"pgpass":    {Rule: "url-password", Secret: "Vx9q" + FakeRand(6, 14, Alnum)},
		"host":      {Rule: HostRule, Secret: "build-07" + ".corp." + "ireneo-internal" + ".net"},
	}
}

// GitHubToken is a fake GitHub personal access token, different per seed.
func GitHubToken(seed uint64) string { return "gh" + "p_" + FakeRand(seed, 36, Alnum) }

// prose is everyday technical English. Words that wake the generic rule
// (key, token, password, secret, auth, access, api) are about one word in
// sixty, as in a developer's chats.
var prose = strings.Fields(`the a an of to in on for with at by from as is are was were be been it this that
these those there here we you they he she I me my our your their its not no yes so and but or if when then
than because after before while about into over under again also just only very more most some any each
every all both few many much other such same new old first last next good bad right wrong small large
long short high low early late fast slow easy hard simple clear sure true false ready done still already
deploy service gateway migration schema database index query release rollback incident outage latency
cache memory disk network router firewall certificate renewal vendor meeting budget report decision ticket
customer invoice shipping sensor firmware update build test pipeline branch merge review commit tag version
function method struct interface error return value config file path folder user group role permission
login account email address port host server client request response timeout retry queue worker job
think know want need try use make take give find tell ask work seem feel leave call keep let begin show
hear play run move live believe hold bring happen write provide sit stand lose pay meet include continue
set learn change lead understand watch follow stop create speak read allow add spend grow open walk win
offer remember consider appear buy wait serve die send expect stay fall cut reach kill remain suggest
raise pass sell require decide pull check fix debug log trace print parse load save store fetch push
thing time year day week month way man woman child world life hand part place case point number problem
fact question idea reason result example system program line order level area side kind head house
issue plan team project product feature design data model table column row field type name list map
key token password secret auth access api`)

// Gen writes conversation-like text: prose, code, JSON tool results, logs,
// with the identifiers real chats carry (UUIDs, hashes, URLs) and, now and
// then, a fake secret.
type Gen struct {
	R   *rand.Rand
	sec []string
}

// NewGen returns a generator that writes the same text for the same seed.
func NewGen(seed uint64) *Gen {
	g := &Gen{R: rand.New(rand.NewPCG(seed, 7))}
	sec := Secrets()
	for _, k := range slices.Sorted(maps.Keys(sec)) {
		g.sec = append(g.sec, sec[k].Secret)
	}
	return g
}

// Words returns n words of prose.
func (g *Gen) Words(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(prose[g.R.IntN(len(prose))])
	}
	return b.String()
}

func (g *Gen) hex(n int) string { return FakeRand(g.R.Uint64(), n, "0123456789abcdef") }

func (g *Gen) uuid() string {
	h := g.hex(32)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Block returns one block of text, 200 bytes to a few KB.
func (g *Gen) Block() string {
	var b strings.Builder
	switch k := g.R.IntN(20); {
	case k < 10: // prose
		for range 1 + g.R.IntN(5) {
			b.WriteString(strings.ToUpper(g.Words(1)) + " " + g.Words(20+g.R.IntN(60)) + ".\n\n")
		}
	case k < 14: // code
		b.WriteString("```go\nfunc handle(w http.ResponseWriter, r *http.Request) {\n")
		for range 3 + g.R.IntN(20) {
			switch g.R.IntN(12) {
			case 0:
				b.WriteString("\ttoken := r.Header.Get(\"Authorization\")\n")
			case 1:
				b.WriteString("\tapiKey := os.Getenv(\"API_KEY\")\n")
			case 2, 3, 4:
				fmt.Fprintf(&b, "\tif err := %s(ctx, %s); err != nil {\n\t\treturn fmt.Errorf(\"%s: %%w\", err)\n\t}\n", g.Words(1), g.Words(1), g.Words(3))
			default:
				fmt.Fprintf(&b, "\t// %s\n\t%s := %s.%s(%d)\n", g.Words(8), g.Words(1), g.Words(1), g.Words(1), g.R.IntN(1000))
			}
		}
		b.WriteString("}\n```\n")
	case k < 17: // a JSON tool result
		b.WriteString("[\n")
		for i := range 2 + g.R.IntN(15) {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `  {"id": "%s", "commit": "%s", "status": "%s", "title": "%s", "url": "https://example.com/%s/%d"}`,
				g.uuid(), g.hex(40), g.Words(1), g.Words(6), g.Words(1), g.R.IntN(99999))
		}
		b.WriteString("\n]\n")
	case k < 18: // logs
		for range 5 + g.R.IntN(30) {
			fmt.Fprintf(&b, "2026-03-%02dT%02d:%02d:%02dZ level=%s msg=%q request_id=%s digest=sha256:%s\n",
				1+g.R.IntN(28), g.R.IntN(24), g.R.IntN(60), g.R.IntN(60), []string{"info", "warn", "error"}[g.R.IntN(3)],
				g.Words(6), g.uuid(), g.hex(64))
		}
	default: // a shell session
		for range 3 + g.R.IntN(10) {
			fmt.Fprintf(&b, "$ git %s %s\n%s\n", g.Words(1), g.hex(7), g.Words(12))
		}
	}
	if g.R.IntN(200) == 0 { // now and then, someone pastes a key
		b.WriteString("\nhere is the key: " + g.sec[g.R.IntN(len(g.sec))] + "\n")
	}
	return b.String()
}

// pwWords are the words of "pw-word" passwords.
var pwWords = [16]string{"Snoppy", "Tulip", "Falcon", "Marble", "Rocket", "Harbor", "Quartz", "Pepper",
	"Sunset", "Maple", "Cobalt", "Willow", "Juniper", "Biscuit", "Lantern", "Otter"}

// Hex is FakeRand over lowercase hex digits.
const Hex = "0123456789abcdef"

// Shapes are fake secrets of many providers' shapes, by kind, for the
// labelled detection set (scrub/testdata/secret-shapes.txt): each call
// with a new seed gives a new value. The two halves of a pair are separate
// kinds ("aws-id" and "aws-secret") so a sentence can hold both.
var Shapes = map[string]func(seed uint64) string{
	"aws-id":         func(s uint64) string { return "AK" + "IA" + FakeRand(s, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") },
	"aws-sts-id":     func(s uint64) string { return "AS" + "IA" + FakeRand(s, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") },
	"aws-secret":     func(s uint64) string { return "wJalr" + FakeRand(s, 35, KeyBody) },
	"aws-session":    func(s uint64) string { return "IQoJb3JpZ2lu" + "X2VjE" + FakeRand(s, 300, KeyBody) },
	"alibaba-id":     func(s uint64) string { return "LT" + "AI5t" + FakeRand(s, 18, Alnum) },
	"alibaba-secret": func(s uint64) string { return FakeRand(s, 30, Alnum) },
	"tencent-id":     func(s uint64) string { return "AK" + "ID" + FakeRand(s, 32, Alnum) },
	"tencent-secret": func(s uint64) string { return FakeRand(s, 32, Alnum) },
	"twilio-sid":     func(s uint64) string { return "AC" + FakeRand(s, 32, Hex) },
	"twilio-token":   func(s uint64) string { return FakeRand(s, 32, Hex) },
	"twilio-key":     func(s uint64) string { return "SK" + FakeRand(s, 32, Hex) },
	"twilio-secret":  func(s uint64) string { return FakeRand(s, 32, Alnum) },
	"google-client": func(s uint64) string {
		return FakeRand(s, 12, "0123456789") + "-" + FakeRand(s+1, 32, "abcdefghijklmnopqrstuvwxyz0123456789") + ".apps.googleusercontent.com"
	},
	"google-secret":   func(s uint64) string { return "GOC" + "SPX-" + FakeRand(s, 28, Alnum+"_-") },
	"google-secret24": func(s uint64) string { return FakeRand(s, 24, Alnum) },
	"github-pat":      func(s uint64) string { return "gh" + "p_" + FakeRand(s, 36, Alnum) },
	"github-fine": func(s uint64) string {
		return "github" + "_pat_" + FakeRand(s, 22, Alnum) + "_" + FakeRand(s+1, 59, Alnum)
	},
	"gitlab-pat": func(s uint64) string { return "gl" + "pat-" + FakeRand(s, 20, Alnum) },
	"openai": func(s uint64) string {
		return "sk-" + "proj-" + FakeRand(s, 74, Alnum) + "T3Blbk" + "FJ" + FakeRand(s+1, 74, Alnum)
	},
	"anthropic": func(s uint64) string { return "sk-ant-" + "api03-" + FakeRand(s, 93, Alnum) + "AA" },
	"slack-bot": func(s uint64) string {
		return "xo" + "xb-" + FakeRand(s, 12, "0123456789") + "-" + FakeRand(s+1, 13, "0123456789") + "-" + FakeRand(s+2, 24, Alnum)
	},
	"stripe":   func(s uint64) string { return "sk" + "_live_" + FakeRand(s, 24, Alnum) },
	"gcp-api":  func(s uint64) string { return "AI" + "za" + FakeRand(s, 35, Alnum+"_-") },
	"sendgrid": func(s uint64) string { return "SG" + "." + FakeRand(s, 22, Alnum) + "." + FakeRand(s+1, 43, Alnum) },
	"npm":      func(s uint64) string { return "np" + "m_" + FakeRand(s, 36, Alnum) },
	"huggingface": func(s uint64) string {
		return "h" + "f_" + FakeRand(s, 34, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
	},
	"digitalocean": func(s uint64) string { return "do" + "p_v1_" + FakeRand(s, 64, Hex) },
	"shopify":      func(s uint64) string { return "sh" + "pat_" + FakeRand(s, 32, "abcdefABCDEF0123456789") },
	"jwt": func(s uint64) string {
		return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." + "eyJzdWIiOi" + FakeRand(s, 40, Alnum) + "." + FakeRand(s+1, 43, Alnum+"_-")
	},
	"b64-40":   func(s uint64) string { return FakeRand(s, 40, KeyBody) },
	"alnum-32": func(s uint64) string { return FakeRand(s, 32, Alnum) },
	"alnum-24": func(s uint64) string { return FakeRand(s, 24, Alnum) },
	"hex-32":   func(s uint64) string { return FakeRand(s, 32, Hex) },
	"hex-64":   func(s uint64) string { return FakeRand(s, 64, Hex) },
	"password": func(s uint64) string { return "Qz" + FakeRand(s, 8, Alnum) + "!7" },
	// Passwords as people choose them: a word and digits ("Snoppy23"), and
	// letters, digits and symbols mixed.
	"pw-word": func(s uint64) string {
		w := pwWords[rand.New(rand.NewPCG(s, 3)).IntN(len(pwWords))]
		return w + FakeRand(s+1, 2, "0123456789")
	},
	"pw-sym": func(s uint64) string {
		return FakeRand(s, 4, Alnum) + FakeRand(s+1, 1, "!@#%^&*") + FakeRand(s+2, 5, Alnum) + FakeRand(s+3, 1, "0123456789")
	},
	"linear":    func(s uint64) string { return "lin" + "_api_" + FakeRand(s, 40, Alnum) },
	"notion":    func(s uint64) string { return "nt" + "n_" + FakeRand(s, 11, "0123456789") + FakeRand(s+1, 35, Alnum) },
	"doppler":   func(s uint64) string { return "dp" + ".pt." + FakeRand(s, 43, Alnum) },
	"grafana":   func(s uint64) string { return "gl" + "sa_" + FakeRand(s, 32, Alnum) + "_" + FakeRand(s+1, 8, Hex) },
	"postman":   func(s uint64) string { return "PM" + "AK-" + FakeRand(s, 24, Hex) + "-" + FakeRand(s+1, 34, Hex) },
	"mailgun":   func(s uint64) string { return "ke" + "y-" + FakeRand(s, 32, Hex) },
	"sentry":    func(s uint64) string { return "sn" + "tryu_" + FakeRand(s, 64, Hex) },
	"b32-32":    func(s uint64) string { return FakeRand(s, 32, Base32) },
	"alnum-40":  func(s uint64) string { return FakeRand(s, 40, Alnum) },
	"b64url-43": func(s uint64) string { return FakeRand(s, 43, Alnum+"_-") },
}

// FilesHolding lists the files under dir (relative to it) whose bytes hold
// marker in any case: the full-text index keeps terms lowercased, so a
// case-sensitive grep would miss a secret that is still there.
func FilesHolding(dir, marker string) ([]string, error) {
	low := bytes.ToLower([]byte(marker))
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(bytes.ToLower(data), low) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}
