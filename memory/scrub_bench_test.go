package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gre "github.com/zricethezav/gitleaks/v8/regexp"
)

// Scrub benchmarks. The regexp backend is gitleaks' build tag: plain
// `go test -bench Scrub` runs Go's regexp, `-tags gore2regex` runs RE2
// compiled to WebAssembly. Each benchmark names its backend in its output.
//
// IRENEO_SCRUB_BENCH_MB sets the size of the scanned text (default 100),
// IRENEO_SCRUB_BENCH_CONVS the number of imported conversations (default
// 10000, about 97 MB of funes jsonl). Both report MB per CPU-second and CPU
// slowdown beside wall time: on a shared machine wall time measures the
// neighbours as much as the code.

// benchProse is everyday technical English. Words that wake the generic
// rule (key, token, password, secret, auth, access, api) are about one word
// in sixty, as in a developer's chats.
var benchProse = strings.Fields(`the a an of to in on for with at by from as is are was were be been it this that
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

// benchGen writes conversation-like text: prose, code, JSON tool results,
// logs, with the identifiers real chats carry (UUIDs, hashes, URLs) and, now
// and then, a fake secret.
type benchGen struct {
	r   *rand.Rand
	sec []string
}

func newBenchGen(seed uint64) *benchGen {
	g := &benchGen{r: rand.New(rand.NewPCG(seed, 7))}
	for _, p := range fakeSecrets() {
		g.sec = append(g.sec, p.secret)
	}
	return g
}

func (g *benchGen) words(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(benchProse[g.r.IntN(len(benchProse))])
	}
	return b.String()
}

func (g *benchGen) hex(n int) string { return fakeRand(g.r.Uint64(), n, "0123456789abcdef") }

func (g *benchGen) uuid() string {
	h := g.hex(32)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// block returns one block of text, 200 bytes to a few KB.
func (g *benchGen) block() string {
	var b strings.Builder
	switch k := g.r.IntN(20); {
	case k < 10: // prose
		for range 1 + g.r.IntN(5) {
			b.WriteString(strings.ToUpper(g.words(1)) + " " + g.words(20+g.r.IntN(60)) + ".\n\n")
		}
	case k < 14: // code
		b.WriteString("```go\nfunc handle(w http.ResponseWriter, r *http.Request) {\n")
		for range 3 + g.r.IntN(20) {
			switch g.r.IntN(12) {
			case 0:
				b.WriteString("\ttoken := r.Header.Get(\"Authorization\")\n")
			case 1:
				b.WriteString("\tapiKey := os.Getenv(\"API_KEY\")\n")
			case 2, 3, 4:
				fmt.Fprintf(&b, "\tif err := %s(ctx, %s); err != nil {\n\t\treturn fmt.Errorf(\"%s: %%w\", err)\n\t}\n", g.words(1), g.words(1), g.words(3))
			default:
				fmt.Fprintf(&b, "\t// %s\n\t%s := %s.%s(%d)\n", g.words(8), g.words(1), g.words(1), g.words(1), g.r.IntN(1000))
			}
		}
		b.WriteString("}\n```\n")
	case k < 17: // a JSON tool result
		b.WriteString("[\n")
		for i := range 2 + g.r.IntN(15) {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `  {"id": "%s", "commit": "%s", "status": "%s", "title": "%s", "url": "https://example.com/%s/%d"}`,
				g.uuid(), g.hex(40), g.words(1), g.words(6), g.words(1), g.r.IntN(99999))
		}
		b.WriteString("\n]\n")
	case k < 18: // logs
		for range 5 + g.r.IntN(30) {
			fmt.Fprintf(&b, "2026-03-%02dT%02d:%02d:%02dZ level=%s msg=%q request_id=%s digest=sha256:%s\n",
				1+g.r.IntN(28), g.r.IntN(24), g.r.IntN(60), g.r.IntN(60), []string{"info", "warn", "error"}[g.r.IntN(3)],
				g.words(6), g.uuid(), g.hex(64))
		}
	default: // a shell session
		for range 3 + g.r.IntN(10) {
			fmt.Fprintf(&b, "$ git %s %s\n%s\n", g.words(1), g.hex(7), g.words(12))
		}
	}
	if g.r.IntN(200) == 0 { // now and then, someone pastes a key
		b.WriteString("\nhere is the key: " + g.sec[g.r.IntN(len(g.sec))] + "\n")
	}
	return b.String()
}

// session returns one conversation of four to ten turns, about 8 KB.
func (g *benchGen) session(i int) *Session {
	s := &Session{ID: fmt.Sprintf("scrub-bench-%05d", i), Harness: []string{HarnessChatGPT, HarnessClaude, HarnessCodex, HarnessClaudeCode}[i%4], Title: g.words(5)}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
	for j := range 4 + g.r.IntN(7) {
		role := RoleUser
		if j%2 == 1 {
			role = RoleAssistant
		}
		t := Turn{TurnUUID: fmt.Sprintf("%s-%d", s.ID, j), Seq: j, TS: t0.Add(time.Duration(j) * time.Minute), Role: role,
			Blocks: []Block{{Type: BlockText, Text: g.block()}}}
		s.Turns = append(s.Turns, t)
	}
	return s
}

var (
	benchTextOnce sync.Once
	benchText     []string
	benchTextSize int64
)

// benchBlocks is ~100 MB of generated block texts, made once.
func benchBlocks() ([]string, int64) {
	benchTextOnce.Do(func() {
		mb := 100
		if v, err := strconv.Atoi(os.Getenv("IRENEO_SCRUB_BENCH_MB")); err == nil && v > 0 {
			mb = v
		}
		g := newBenchGen(42)
		for benchTextSize < int64(mb)<<20 {
			t := g.block()
			benchText = append(benchText, t)
			benchTextSize += int64(len(t))
		}
	})
	return benchText, benchTextSize
}

// BenchmarkScrubScan measures Scan's throughput over ~100 MB of
// conversation text, one block at a time as import and scrub do, on one
// goroutine and on every CPU.
func BenchmarkScrubScan(b *testing.B) {
	sc, err := NewScrubber(testPatterns)
	if err != nil {
		b.Fatal(err)
	}
	blocks, size := benchBlocks()
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("backend=%s/workers=%d", backendName(), workers), func(b *testing.B) {
			b.SetBytes(size)
			var found int64
			c0 := cpuTime()
			for b.Loop() {
				found = scanAll(sc, blocks, workers)
			}
			if cpu := cpuTime() - c0; cpu > 0 {
				b.ReportMetric(float64(size)*float64(b.N)/(1<<20)/cpu.Seconds(), "MB/cpu-s")
			}
			b.ReportMetric(float64(found), "findings")
		})
	}
}

func scanAll(sc *Scrubber, blocks []string, workers int) int64 {
	var mu sync.Mutex
	var total int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n int64
			for i := w; i < len(blocks); i += workers {
				n += int64(len(sc.Scan(blocks[i])))
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	return total
}

func backendName() string {
	if gre.Version == "stdlib" {
		return "stdlib"
	}
	return "re2"
}

// BenchmarkScrubImport imports 10k generated conversations with scrub off
// and on, the way `ireneo import` does (stage each, commit the batch), and
// reports the slowdown scrub adds. Target: at most 30%.
func BenchmarkScrubImport(b *testing.B) {
	sc, err := NewScrubber(testPatterns)
	if err != nil {
		b.Fatal(err)
	}
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("IRENEO_SCRUB_BENCH_CONVS")); err == nil && v > 0 {
		n = v
	}
	g := newBenchGen(7)
	var files [][]byte // funes jsonl, as an import reads it
	var size int64
	for i := range n {
		data, err := MarshalSession(g.session(i))
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
		size += int64(len(data))
	}
	b.Run("backend="+backendName(), func(b *testing.B) {
		var off, on, cpuOff, cpuOn time.Duration
		for b.Loop() {
			w, c := importOnce(b, files, nil)
			off, cpuOff = off+w, cpuOff+c
			w, c = importOnce(b, files, sc.RedactSession)
			on, cpuOn = on+w, cpuOn+c
		}
		runs := float64(b.N)
		b.ReportMetric(off.Seconds()/runs, "s-off")
		b.ReportMetric(on.Seconds()/runs, "s-on")
		b.ReportMetric(100*(on.Seconds()/off.Seconds()-1), "slowdown-%")
		if cpuOff > 0 {
			b.ReportMetric(cpuOff.Seconds()/runs, "cpu-s-off")
			b.ReportMetric(cpuOn.Seconds()/runs, "cpu-s-on")
			b.ReportMetric(100*(cpuOn.Seconds()/cpuOff.Seconds()-1), "cpu-slowdown-%")
		}
		b.ReportMetric(float64(size)/(1<<20), "MB-imported")
	})
}

// importOnce imports files into a new memory and returns the wall and CPU
// time it took.
func importOnce(b *testing.B, files [][]byte, redact func(*Session) map[string]int) (time.Duration, time.Duration) {
	b.StopTimer()
	m, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	b.StartTimer()
	t0, c0 := time.Now(), cpuTime()
	ctx := context.Background()
	batch, err := m.NewBatch(IngestOptions{Redact: redact})
	if err != nil {
		b.Fatal(err)
	}
	for _, data := range files {
		ss, _, err := ReadSessions(strings.NewReader(string(data)))
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range ss {
			if err := batch.Add(ctx, s); err != nil {
				b.Fatal(err)
			}
		}
	}
	rep, err := batch.Commit(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	if redact != nil && len(rep.Redacted) == 0 {
		b.Fatal("scrub on, yet nothing redacted")
	}
	return time.Since(t0), cpuTime() - c0
}
