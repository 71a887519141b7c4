package lifelike

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// A fact is one exchange of the history that a question is about (or a
// near-duplicate of one: a sibling in the same family, with another
// answer). The user turn and the assistant turn are written here; the
// renderer wraps them in more prose. The evidence turn holds the answer.
type fact struct {
	typ      string // the question type it is gold for; "" for a distractor only
	family   int
	personal bool      // a chat about life, not work: ChatGPT and Claude.ai only
	when     time.Time // the conversation's date when it matters, else zero
	proj     *project
	topic    string // what the exchange is about, for titles and restating
	user     string // the person's message (the core of it)
	asst     string // the assistant's reply (the core of it)
	evidUser bool   // the evidence is the user turn, else the assistant turn
	answer   string
	qs       []string // ways to ask; the question stream picks one
	echo     []string // everyday tasks that mention the same subject, for other chats

	conv int    // the conversation it is placed in
	turn string // the evidence turn's uuid, once rendered
}

// The history spans about fourteen months.
var (
	spanStart = time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	spanEnd   = time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
)

// spanMonths are the months of the span: year, month.
func spanMonths() []time.Time {
	var out []time.Time
	for m := spanStart; m.Before(spanEnd); m = m.AddDate(0, 1, 0) {
		out = append(out, m)
	}
	return out
}

// monthName names a month in a question: with its year when the span has
// that month twice.
func monthName(m time.Time) string {
	n := 0
	for _, o := range spanMonths() {
		if o.Month() == m.Month() {
			n++
		}
	}
	if n > 1 {
		return fmt.Sprintf("%s %d", m.Month(), m.Year())
	}
	return m.Month().String()
}

// dayIn is a working-hours moment on a random day of month m.
func dayIn(r *rand.Rand, m time.Time) time.Time {
	days := time.Date(m.Year(), m.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
	d := m.AddDate(0, 0, r.IntN(days))
	if d.After(spanEnd) {
		d = spanEnd.AddDate(0, 0, -1-r.IntN(10))
	}
	return d.Add(time.Duration(13+r.IntN(9))*time.Hour + time.Duration(r.IntN(3600))*time.Second)
}

func workProject(r *rand.Rand) *project { return projects[r.IntN(5)] }

func incID(r *rand.Rand) string { return fmt.Sprintf("INC-%d", 1000+r.IntN(9000)) }

func ticketID(r *rand.Rand, p *project) string { return fmt.Sprintf("%s-%d", p.key, 100+r.IntN(4900)) }

// --- short and long: facts named by an identifier -----------------------

type symptom struct{ said, para string }

var incidentSymptoms = []symptom{
	{"returning 502s on checkout", "throwing bad gateway errors when people paid"},
	{"writing duplicate ledger entries", "double-posting entries"},
	{"serving stale balances", "showing out-of-date balances to customers"},
	{"piling up webhook retries", "backing up on retried webhooks"},
	{"spiking to 4 second p99 latency", "getting really slow at the tail"},
	{"running out of disk on the WAL volume", "filling up the write-ahead log disk"},
	{"losing consumer offsets after a rebalance", "forgetting its place in the topic after rebalancing"},
	{"failing TLS handshakes after the cert rotation", "breaking HTTPS after the certificates were renewed"},
	{"exhausting its database connections", "running out of Postgres connections"},
	{"crash-looping after the deploy", "restarting over and over after the release"},
}

var incidentDecisions = []func(r *rand.Rand, p *project) string{
	func(r *rand.Rand, p *project) string {
		return fmt.Sprintf("roll back to v%d.%d.%d", 3+r.IntN(3), r.IntN(20), r.IntN(10))
	},
	func(r *rand.Rand, p *project) string { return "fail over to " + pick(r, hosts[:3]) },
	func(r *rand.Rand, p *project) string {
		return fmt.Sprintf("pause the %s job until %s", pick(r, p.svcs), pick(r, []string{"Monday", "the fix ships", "after the freeze"}))
	},
	func(r *rand.Rand, p *project) string {
		return fmt.Sprintf("raise the connection pool to %d", 40+8*r.IntN(8))
	},
	func(r *rand.Rand, p *project) string { return fmt.Sprintf("revert PR #%d", 3000+r.IntN(2500)) },
	func(r *rand.Rand, p *project) string { return "drain edge-eu-1 and shift traffic to edge-us-2" },
	func(r *rand.Rand, p *project) string {
		return fmt.Sprintf("turn off the %s feature flag", pick(r, []string{"checkout_v2", "async_settlement", "new_router", "batch_webhooks", "smart_retry"}))
	},
	func(r *rand.Rand, p *project) string {
		return "rotate the signing key and replay the dead-letter queue"
	},
	func(r *rand.Rand, p *project) string {
		return fmt.Sprintf("add a unique constraint on %s (account_id, external_ref)", pick(r, p.tables))
	},
	func(r *rand.Rand, p *project) string {
		return fmt.Sprintf("cap the worker concurrency at %d", 4+2*r.IntN(8))
	},
}

var bugSymptoms = []symptom{
	{"refunds showing the wrong currency", "refunds displayed in the wrong currency"},
	{"the CSV export truncating at 10,000 rows", "exports getting cut off at ten thousand lines"},
	{"late events missing from the daily rollup", "events that arrive late never making it into the daily numbers"},
	{"alerts firing twice for the same incident", "duplicate pages for one incident"},
	{"pagination skipping records on page boundaries", "rows going missing between pages"},
	{"saving large views timing out", "big saved views failing to save"},
	{"settlement totals off by one cent", "settlement sums a cent off"},
	{"the nightly job reprocessing yesterday's files", "the overnight run picking up the previous day's files again"},
}

var bugCauses = []func(r *rand.Rand, p *project) string{
	func(r *rand.Rand, p *project) string { return "the cache key ignored the currency code" },
	func(r *rand.Rand, p *project) string { return "an off-by-one in the cursor comparison" },
	func(r *rand.Rand, p *project) string { return "the cutoff used local time instead of UTC" },
	func(r *rand.Rand, p *project) string {
		return fmt.Sprintf("a missing index on %s.%s", pick(r, p.tables), pick(r, []string{"account_id", "created_at", "merchant_id", "status"}))
	},
	func(r *rand.Rand, p *project) string { return "a race between the retry loop and the commit" },
	func(r *rand.Rand, p *project) string { return "float rounding in the fee calculation" },
	func(r *rand.Rand, p *project) string { return "the dedupe window was keyed on the alert title" },
	func(r *rand.Rand, p *project) string {
		return fmt.Sprintf("a %d second statement timeout in %s", 5+5*r.IntN(6), pick(r, p.libs))
	},
	func(r *rand.Rand, p *project) string { return "the watermark was read before the last batch committed" },
}

// idFamily makes 2–3 incidents or bugs about the same service and symptom,
// each with its own identifier and answer.
func idFamily(r *rand.Rand, fam int, types []string, used map[string]bool) []*fact {
	p := workProject(r)
	svc := pick(r, p.svcs)
	var out []*fact
	if r.IntN(2) == 0 {
		sy := pick(r, incidentSymptoms)
		usedK := map[int]bool{}
		for _, typ := range types {
			id := incID(r)
			for used[id] {
				id = incID(r)
			}
			used[id] = true
			k := r.IntN(len(incidentDecisions))
			for usedK[k] {
				k = r.IntN(len(incidentDecisions))
			}
			usedK[k] = true
			dec := incidentDecisions[k](r, p)
			who := pick(r, people)
			f := &fact{typ: typ, family: fam, proj: p, answer: dec, topic: fmt.Sprintf("%s %s %s", id, svc, sy.said)}
			f.user = fmt.Sprintf("%s is open again: %s is %s since the %s deploy. %s is on call and is asking whether we roll back or push through. What would you do?",
				id, svc, sy.said, pick(r, []string{"morning", "afternoon", "evening", "Friday", "midnight"}), who)
			if r.IntN(2) == 0 {
				f.evidUser = true
				f.asst = fmt.Sprintf("So for %s the question is whether to roll back or push through while %s is %s. Both are defensible; it depends on whether the error rate is still climbing and how much data the new code has already written.", id, svc, sy.said)
				f.user = fmt.Sprintf("Update on %s (%s %s): after the call with %s we decided to %s. Writing it down here so I have it for the postmortem.", id, svc, sy.said, who, dec)
			} else {
				f.asst = fmt.Sprintf("You're asking whether to roll back or push through on %s while %s is %s. Given what the dashboards show, my recommendation is to %s, and then look at the root cause once the error rate is back to normal. That is what I'd put in the incident channel as the decision for %s.", id, svc, sy.said, dec, id)
			}
			noun := pick(r, []string{"decision", "mitigation", "rollback decision", "what we decided"})
			f.qs = []string{
				fmt.Sprintf("%s %s", id, noun),
				fmt.Sprintf("%s %s %s", id, svc, noun),
				fmt.Sprintf("%s decision %s", id, pick(r, []string{"rollback", "incident", "on-call"})),
			}
			if typ == TypeLong {
				f.qs = []string{
					fmt.Sprintf("What did we decide to do about %s when %s was %s?", id, svc, sy.para),
					fmt.Sprintf("For incident %s, the one where %s kept %s, what was the call we made?", id, svc, sy.para),
					fmt.Sprintf("Remind me how we handled %s back when %s was %s.", id, svc, sy.para),
					fmt.Sprintf("In the end, what was the call on %s — %s %s?", id, svc, sy.para),
				}
			}
			out = append(out, f)
		}
		return out
	}
	sy := pick(r, bugSymptoms)
	usedK := map[int]bool{}
	for _, typ := range types {
		id := ticketID(r, p)
		for used[id] {
			id = ticketID(r, p)
		}
		used[id] = true
		k := r.IntN(len(bugCauses))
		for usedK[k] {
			k = r.IntN(len(bugCauses))
		}
		usedK[k] = true
		cause := bugCauses[k](r, p)
		f := &fact{typ: typ, family: fam, proj: p, answer: cause, topic: fmt.Sprintf("%s %s", id, sy.said)}
		f.user = fmt.Sprintf("Can you help me dig into %s? It's the bug about %s in %s. I attached the logs from %s; it only shows up in production.", id, sy.said, svc, pick(r, hosts))
		if r.IntN(3) == 0 {
			f.evidUser = true
			f.user = fmt.Sprintf("Found it! The root cause of %s (%s) is that %s. I'll put up a PR in %s today.", id, sy.said, cause, p.name)
			f.asst = fmt.Sprintf("Nice find on %s. So the root cause of %s is settled; the next step is a regression test that reproduces %s before the fix lands.", id, sy.said, sy.said)
		} else {
			f.asst = fmt.Sprintf("I looked through what you sent for %s. The bug about %s comes down to this: the root cause is that %s. That also explains why it only shows up in production, where the volume is higher.", id, sy.said, cause)
		}
		noun := pick(r, []string{"root cause", "cause", "why it broke"})
		f.qs = []string{fmt.Sprintf("%s %s", id, noun), fmt.Sprintf("%s %s root cause", id, svc), fmt.Sprintf("%s bug cause", id)}
		if typ == TypeLong {
			f.qs = []string{
				fmt.Sprintf("What turned out to be the root cause of %s, the bug with %s?", id, sy.para),
				fmt.Sprintf("Why did %s happen — you know, %s in %s?", id, sy.para, svc),
				fmt.Sprintf("What was behind ticket %s about %s?", id, sy.para),
				fmt.Sprintf("Did we ever find out what caused %s, with %s?", id, sy.para),
			}
		}
		out = append(out, f)
	}
	return out
}

// --- noid: no identifier, paraphrased topic words -----------------------

type feature struct{ said, alt, asked string }

var features = []feature{
	{"login", "sign-in flow", "sign-in"},
	{"checkout", "payment step", "payment page"},
	{"CSV export", "export button", "spreadsheet download"},
	{"search", "search box", "lookup"},
	{"invoice PDF", "invoice renderer", "billing document"},
	{"password reset email", "reset email", "reset-password message"},
	{"file upload", "upload widget", "attachment upload"},
	{"notification digest", "digest email", "summary email"},
	{"signup form", "registration form", "registration page"},
	{"dark mode", "theme switcher", "night theme"},
	{"refund screen", "refund dialog", "refunds page"},
	{"audit log", "audit trail", "activity history"},
}

type trouble struct{ said, asked string }

var troubles = []trouble{
	{"integration test is flaky", "test that kept failing now and then"},
	{"page is really slow", "page that took forever to load"},
	{"background job keeps crashing", "job that kept dying"},
	{"layout breaks", "layout that looked broken"},
	{"request times out", "request that never finished"},
}

var conditions = []trouble{
	{"only on Fridays", "only on Fridays"},
	{"only in CI", "only on the CI runners"},
	{"only under load", "only when traffic was high"},
	{"only for EU customers", "only for European customers"},
	{"only after midnight UTC", "only late at night UTC"},
	{"only in Safari", "only in Safari"},
	{"only on the first of the month", "only at the start of the month"},
	{"only for accounts with thousands of invoices", "only for really big accounts"},
}

var fixes = []string{
	"freeze the clock with a fake timer in the test",
	"compute the expiry in UTC instead of server time",
	"bump the runner memory to 8 GB",
	"add a composite index on (merchant_id, created_at)",
	"stream the rows instead of buffering them",
	"format dates with Intl.DateTimeFormat instead of toLocaleString",
	"batch the lookups in groups of 200",
	"set the cookie's SameSite attribute to Lax",
	"move the work to a queue and return 202 right away",
	"cache the rendered template for five minutes",
	"paginate the query with a keyset cursor",
	"pin the headless browser to the same version as CI",
}

func noidFamily(r *rand.Rand, fam int, types []string, used map[string]bool) []*fact {
	tr := pick(r, troubles)
	cond := pick(r, conditions)
	p := projects[[]int{0, 1, 2, 5}[r.IntN(4)]]
	var out []*fact
	var fts []feature
	for _, i := range r.Perm(len(features)) {
		key := "noid|" + features[i].said + "|" + tr.said + "|" + cond.said
		if !used[key] && len(fts) < len(types) {
			used[key] = true
			fts = append(fts, features[i])
		}
	}
	fx := r.Perm(len(fixes))
	for i, ft := range fts {
		typ := types[i]
		fix := fixes[fx[i]]
		f := &fact{typ: typ, family: fam, proj: p, answer: fix, topic: fmt.Sprintf("%s %s %s", ft.said, tr.said, cond.said)}
		f.user = fmt.Sprintf("The %s %s, and it happens %s. I've stared at it for an hour. Any idea what could cause that pattern?", ft.said, tr.said, cond.said)
		alt := ft.said
		if r.IntN(2) == 0 {
			alt = ft.alt
		}
		if r.IntN(3) == 0 {
			f.evidUser = true
			f.user = fmt.Sprintf("Closing the loop on the %s thing (the %s %s, %s): what fixed it in the end was to %s. Thanks for the pointers.", ft.said, ft.said, tr.said, cond.said, fix)
			f.asst = fmt.Sprintf("Glad the %s is sorted. Problems that happen %s are almost always about time, environment or data size, so it's worth adding a test that pins that condition down.", alt, cond.said)
		} else {
			f.asst = fmt.Sprintf("When something happens %s, look at what differs in that situation. For the %s here, the fix I'd go with is to %s. That removes the dependency on the environment, and the %s should behave the same everywhere afterwards.", cond.said, alt, fix, alt)
		}
		f.qs = []string{
			fmt.Sprintf("How did we fix the %s %s %s?", ft.asked, tr.asked, cond.asked),
			fmt.Sprintf("What was the fix for that %s %s, the one that happened %s?", ft.asked, tr.asked, cond.asked),
			fmt.Sprintf("There was a %s %s %s — what did we do about it?", ft.asked, tr.asked, cond.asked),
			fmt.Sprintf("what ended up fixing the %s %s %s", ft.asked, tr.asked, cond.asked),
		}
		out = append(out, f)
	}
	return out
}

// --- user-said: the person's own words are the evidence ------------------

type userFactKind struct {
	slots  []string
	value  func(r *rand.Rand) string
	user   string // %[1]s slot, %[2]s value
	asst   string // restates the topic without the value
	qs     []string
	topic  string
	isWork bool
}

var userFactKinds = []userFactKind{
	{slots: []string{"Berlin half marathon", "Brooklyn 10K", "Lisbon marathon", "trail race in the hills", "charity 5K", "Porto half marathon"},
		value: func(r *rand.Rand) string { return fmt.Sprintf("%d:%02d:%02d", 1+r.IntN(3), r.IntN(60), 5*r.IntN(12)) },
		user:  "I signed up for the %[1]s! My goal is to finish in %[2]s, which feels ambitious but doable. Can you help me plan the training?",
		asst:  "Congratulations on signing up for the %[1]s. Setting a goal time is a good way to structure the training: we can work backwards from race day, build your weekly mileage gradually, and include one quality session a week at goal pace.",
		qs:    []string{"What did I say my goal time for the %[1]s was?", "what time was I aiming for in the %[1]s", "Remind me of my target finish time for the %[1]s."},
		topic: "training for the %[1]s"},
	{slots: []string{"payments", "platform", "data", "growth", "mobile", "SRE"},
		value: func(r *rand.Rand) string {
			return fmt.Sprintf("%s, %s %d", pick(r, []string{"Tuesday", "Wednesday", "Friday"}), pick(r, months), 1+r.IntN(28))
		},
		user:  "First week on the %[1]s team. My first sprint ends on %[2]s and I'd like to ship at least one real change before then. How should I pick something?",
		asst:  "A first sprint on a new team is mostly about learning how the team works. Pick a small, well-scoped change that touches the main code path, ask for review early, and use the sprint to meet the people who own the pieces you depend on.",
		qs:    []string{"When does my first sprint on the %[1]s team end?", "when did I say my first %[1]s sprint ends", "What's the end date of my first sprint with the %[1]s team?"},
		topic: "first sprint on the %[1]s team", isWork: true},
	{slots: []string{"daughter", "partner", "brother", "mother", "roommate", "nephew"},
		value: func(r *rand.Rand) string {
			return pick(r, []string{"tree nuts", "sesame", "shellfish", "kiwi", "mustard", "celery", "eggs", "soy"})
		},
		user:  "I'm cooking for a few people this weekend. Heads up that my %[1]s is allergic to %[2]s, so whatever we plan has to avoid it completely.",
		asst:  "Thanks for mentioning the allergy — that's the most important constraint for the menu. I'll keep your %[1]s's allergy in mind and suggest dishes where it's easy to avoid cross-contamination, and you can double-check labels on anything pre-made.",
		qs:    []string{"What did I say my %[1]s is allergic to?", "what's my %[1]s allergic to again", "Which food allergy did I mention my %[1]s has?"},
		topic: "a dinner menu that works for my %[1]s"},
	{slots: []string{"laptop", "road bike", "sofa", "camera", "monitor", "espresso machine"},
		value: func(r *rand.Rand) string { return fmt.Sprintf("€%d", 200+50*r.IntN(50)) },
		user:  "I'm shopping for a new %[1]s. My budget is %[2]s and I don't want to spend more than that; I care more about build quality than features. What should I look at?",
		asst:  "A clear budget makes choosing a %[1]s much easier. Within your budget, the sweet spot is usually last year's mid-range model: most of the build quality of the flagship without paying for features you said you don't need.",
		qs:    []string{"What budget did I give you for the %[1]s?", "how much did I say I wanted to spend on a new %[1]s", "What's the most I said I'd spend on the %[1]s?"},
		topic: "buying a new %[1]s"},
	{slots: cities,
		value: func(r *rand.Rand) string { return fmt.Sprintf("%s %d", pick(r, months), 1+r.IntN(28)) },
		user:  "Planning a trip: I'm flying to %[1]s on %[2]s and staying about a week. What neighbourhoods should I look at for a place to stay?",
		asst:  "%[1]s is a great choice for a week-long trip. The neighbourhoods to consider depend on whether you want to be close to the old town and the restaurants or somewhere quieter with good transit; I'd book soon, since prices go up closer to the date.",
		qs:    []string{"When did I say I'm flying to %[1]s?", "what date is my flight to %[1]s", "When is my trip to %[1]s, the date I told you?"},
		topic: "a trip to %[1]s"},
	{slots: []string{"design doc for the new ledger schema", "migration plan", "Q3 roadmap draft", "on-call runbook", "capacity review", "post-incident review"},
		value: func(r *rand.Rand) string {
			return fmt.Sprintf("%s, %s %d", pick(r, []string{"Monday", "Thursday", "Friday"}), pick(r, months), 1+r.IntN(28))
		},
		user:  "My manager Priya wants the %[1]s by %[2]s. I haven't started. Can you help me outline it so I'm not writing from a blank page?",
		asst:  "Let's get the %[1]s outlined. A good structure is context, goals and non-goals, the proposal, alternatives considered, and open questions; if you fill in rough bullets for each section first, the prose comes much faster.",
		qs:    []string{"When did I say Priya wants the %[1]s?", "what's the deadline for the %[1]s I mentioned", "By when does my manager need the %[1]s?"},
		topic: "the %[1]s", isWork: true},
	{slots: []string{"sister", "dad", "best friend", "grandmother", "colleague Wen", "son"},
		value: func(r *rand.Rand) string { return fmt.Sprintf("%s %d", pick(r, months), 1+r.IntN(28)) },
		user:  "Gift ideas please: my %[1]s's birthday is on %[2]s and I always leave it to the last minute. They like hiking and good coffee.",
		asst:  "Birthday gifts for someone who likes hiking and coffee are fun to pick. A few ideas for your %[1]s: a compact pour-over kit for the trail, a good insulated flask, or a bag of beans from a local roaster with a hand-drawn trail map.",
		qs:    []string{"When is my %[1]s's birthday, as I told you?", "what date did I say my %[1]s's birthday is", "When's my %[1]s's birthday again?"},
		topic: "a birthday gift for my %[1]s"},
	{slots: []string{"new kitten", "home server", "sourdough starter", "team's Slack bot", "side project", "vegetable garden", "sailboat", "book club"},
		value: func(r *rand.Rand) string {
			return pick(r, []string{"Biscuit", "Pelican", "Marlowe", "Juniper", "Zephyr", "Tofu", "Ferro", "Quill", "Nimbus", "Clementine", "Basalt", "Pico"})
		},
		user:  "Naming things is hard, but I've settled: the %[1]s is going to be called %[2]s. Now I need help with the rest of the setup.",
		asst:  "Great, naming the %[1]s is the hardest part done. For the rest of the setup, let's list what you need in the first week and what can wait; most people overbuy or overplan at the start.",
		qs:    []string{"What name did I pick for the %[1]s?", "what did I say I'm calling my %[1]s", "What's the name I settled on for my %[1]s?"},
		topic: "setting up the %[1]s"},
	{slots: []string{"housewarming", "birthday barbecue", "team dinner", "board game night", "farewell drinks for Kofi", "Thanksgiving dinner", "summer picnic"},
		value: func(r *rand.Rand) string { return fmt.Sprintf("%d people", 6+r.IntN(30)) },
		user:  "I'm hosting the %[1]s and I've invited %[2]s. Can you help me figure out food and drinks without going overboard?",
		asst:  "Hosting the %[1]s sounds fun. A good rule for quantities is to plan per person and round up slightly; let's pick two or three dishes that scale easily and can be prepared the day before.",
		qs:    []string{"How many people did I say I invited to the %[1]s?", "how many guests for the %[1]s did I mention", "What was the headcount I gave you for the %[1]s?"},
		topic: "hosting the %[1]s"},
	{slots: []string{"piano lesson", "climbing session", "1:1 with Priya", "physio appointment", "Spanish class", "dog walker", "sprint planning"},
		value: func(r *rand.Rand) string {
			return fmt.Sprintf("%s at %d:%02d", pick(r, []string{"Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Saturdays"}), 7+r.IntN(12), 15*r.IntN(4))
		},
		user:  "My calendar is a mess. The %[1]s is fixed on %[2]s, so everything else has to move around it. Can you help me lay out a realistic week?",
		asst:  "Let's build the week around the %[1]s, since that's the fixed point. I'd block focus time in the mornings, keep meetings clustered, and leave one evening free so the week doesn't feel packed.",
		qs:    []string{"Which day of the week is my %[1]s, as I told you?", "what day and time is the %[1]s fixed on, like I told you", "When's my %[1]s fixed in my calendar, per what I said?"},
		topic: "planning my week around the %[1]s"},
	{slots: cities,
		value: func(r *rand.Rand) string {
			return "Hotel " + pick(r, []string{"Aurora", "Miramar", "Lindenhof", "Solana", "Belvedere", "Cardinal", "Harbour View", "Ostrava", "Tamarind", "Greystone"})
		},
		user:  "Booked the place for the %[1]s trip — we're staying at %[2]s, near the river. What should we do on the first evening?",
		asst:  "Nice, staying near the river in %[1]s puts you close to a lot. For a first evening after travelling, keep it simple: a walk along the water, an early dinner nearby, and save the big sights for the next day.",
		qs:    []string{"Which hotel did I say we booked in %[1]s?", "where are we staying in %[1]s, the hotel I mentioned", "What's the name of our hotel for the %[1]s trip?"},
		topic: "our stay in %[1]s"},
	{slots: []string{"bedroom", "kitchen", "hallway", "home office", "bathroom", "living room"},
		value: func(r *rand.Rand) string {
			return pick(r, []string{"Sage Green", "Hague Blue", "Skimming Stone", "Sulking Room Pink", "Railings", "Setting Plaster", "India Yellow", "Pavilion Gray"})
		},
		user:  "We're finally painting the %[1]s. We went with %[2]s after way too many sample pots. How much paint do I need for about 14 square metres of wall?",
		asst:  "Painting the %[1]s is a satisfying weekend project. For the quantity, plan two coats and check the coverage printed on the tin; most emulsions cover 10–12 square metres per litre per coat, so buy a little extra for touch-ups.",
		qs:    []string{"Which paint colour did I say we chose for the %[1]s?", "what colour are we painting the %[1]s, like I said", "What was the paint I picked for the %[1]s?"},
		topic: "painting the %[1]s"},
	{slots: []string{"standing desk", "running shoes", "noise-cancelling headphones", "bookshelf", "coffee grinder", "tent"},
		value: func(r *rand.Rand) string {
			return fmt.Sprintf("#%c%c-%05d", 'A'+rune(r.IntN(26)), 'A'+rune(r.IntN(26)), r.IntN(100000))
		},
		user:  "The %[1]s I ordered still hasn't arrived — order %[2]s, placed three weeks ago. Can you help me write a polite but firm message to the shop?",
		asst:  "Sorry the %[1]s is so late. Here's a message you can send: it states when you ordered, asks for a delivery date or a refund, and gives them a reasonable deadline to reply.",
		qs:    []string{"What was the order number I gave you for the %[1]s?", "what's the order number of my %[1]s", "Which order number did I mention for the late %[1]s?"},
		topic: "a late %[1]s delivery"},
	{slots: cities,
		value: func(r *rand.Rand) string { return fmt.Sprintf("%02d:%02d", 6+r.IntN(14), r.IntN(60)) },
		user:  "My train to %[1]s leaves at %[2]s from the central station. How early should I leave home, given I need to pick up the tickets at the machine?",
		asst:  "For a train to %[1]s with tickets still to pick up, give yourself a buffer: the machines can have queues at busy times, and it's worth being on the platform a few minutes before departure.",
		qs:    []string{"What time did I say my train to %[1]s leaves?", "when does my train to %[1]s depart, the time I told you", "What's the departure time of my %[1]s train?"},
		topic: "catching the train to %[1]s"},
	{slots: []string{"AWS practice exam", "Spanish placement test", "driving theory test", "CKA mock exam", "typing test"},
		value: func(r *rand.Rand) string { return fmt.Sprintf("%d%%", 55+r.IntN(45)) },
		user:  "Just got my result on the %[1]s: %[2]s. Not sure whether to book the real thing now or study another month. What do you think?",
		asst:  "Congrats on getting through the %[1]s. Whether to book now depends on the pass mark and on which sections cost you points; if the weak areas are narrow, a couple of focused weeks is usually enough.",
		qs:    []string{"What score did I say I got on the %[1]s?", "how did I do on the %[1]s, the result I told you", "What was my result in the %[1]s?"},
		topic: "my %[1]s result"},
}

func userSaidFamily(r *rand.Rand, fam int, types []string, used map[string]bool) []*fact {
	ki := r.IntN(len(userFactKinds))
	k := userFactKinds[ki]
	var out []*fact
	var slots []string
	for _, i := range r.Perm(len(k.slots)) {
		key := fmt.Sprintf("user|%d|%s", ki, k.slots[i])
		if !used[key] && len(slots) < len(types) {
			used[key] = true
			slots = append(slots, k.slots[i])
		}
	}
	for i, s := range slots {
		typ := types[i]
		v := k.value(r)
		f := &fact{typ: typ, family: fam, personal: !k.isWork, proj: projects[0], answer: v, evidUser: true,
			topic: fmt.Sprintf(k.topic, s)}
		f.user = fmt.Sprintf(k.user, s, v)
		f.asst = fmt.Sprintf(k.asst, s)
		slot := fmt.Sprintf("{u%d}", ki)
		for _, tpl := range lifeSubjects {
			if strings.Contains(tpl, slot) {
				f.echo = append(f.echo, strings.ReplaceAll(tpl, slot, s))
			}
		}
		for _, q := range k.qs {
			f.qs = append(f.qs, fmt.Sprintf(q, s))
		}
		out = append(out, f)
	}
	return out
}

// --- assistant-said: a suggestion the assistant made --------------------

type adviceKind struct {
	problem, asked string // %[1]s: a context slot
	slots          func(r *rand.Rand) string
	suggestions    []string
	personal       bool
}

var adviceKinds = []adviceKind{
	{problem: "speeding up the Docker builds for %[1]s on the CI runners", asked: "making the %[1]s container builds faster in CI",
		slots: func(r *rand.Rand) string { return pick(r, workProject(r).svcs) },
		suggestions: []string{"BuildKit cache mounts for the module cache", "a multi-stage build with a distroless final image",
			"copying the lockfile and installing dependencies before copying the source", "a shared remote cache on build-runner-11"}},
	{problem: "reducing bloat on the %[1]s table", asked: "the %[1]s table getting bloated",
		slots: func(r *rand.Rand) string { return pick(r, workProject(r).tables) },
		suggestions: []string{"pg_repack during the Sunday maintenance window", "lowering autovacuum_vacuum_scale_factor to 0.02 for that table",
			"partitioning it by month and dropping old partitions", "a fillfactor of 80 so updates stay on the same page"}},
	{problem: "making the %[1]s test suite faster", asked: "the slow tests in %[1]s",
		slots: func(r *rand.Rand) string { return pick(r, projects[:4]).name },
		suggestions: []string{"cloning a template database per test instead of running migrations each time", "splitting the suite into shards across four CI jobs",
			"replacing the sleep-based waits with polling helpers", "running the unit tests without the integration build tag by default"}},
	{problem: "handling retries in the %[1]s client", asked: "how the %[1]s client should retry",
		slots: func(r *rand.Rand) string { return pick(r, workProject(r).svcs) },
		suggestions: []string{"exponential backoff with full jitter, capped at 30 seconds", "retrying only on 503 and connection resets, never on 4xx",
			"a retry budget of 10% of requests per minute", "idempotency keys on every POST so retries are safe"}},
	{problem: "my knee hurting after long runs over %[1]s", asked: "knee pain after runs longer than %[1]s",
		slots: func(r *rand.Rand) string { return fmt.Sprintf("%d km", 12+2*r.IntN(8)) }, personal: true,
		suggestions: []string{"clamshells and single-leg glute bridges three times a week", "increasing cadence by about five percent",
			"cutting the long run by a third for two weeks", "replacing the shoes, since they have over 800 km on them"}},
	{problem: "keeping %[1]s alive on a north-facing balcony", asked: "growing %[1]s on a shady balcony",
		slots: func(r *rand.Rand) string {
			return pick(r, []string{"basil", "tomatoes", "mint", "chillies", "lavender"})
		}, personal: true,
		suggestions: []string{"a self-watering planter and moving it to the sunniest corner", "a small LED grow light on a timer for six hours",
			"watering in the morning only and letting the top inch dry out", "switching to a shade-tolerant variety"}},
	{problem: "structuring the on-call handoff for %[1]s", asked: "how to do on-call handoffs for %[1]s",
		slots: func(r *rand.Rand) string { return pick(r, projects[:5]).name },
		suggestions: []string{"a fifteen-minute handoff call with a shared doc of open alerts", "a handoff template with open incidents, silences and risky deploys",
			"rotating on Wednesdays so the handoff never falls on a weekend", "an automated summary posted to the channel by beacon-notifier"}},
	{problem: "learning %[1]s coming from Go", asked: "picking up %[1]s as a Go developer",
		slots: func(r *rand.Rand) string { return pick(r, []string{"Rust", "Elixir", "Kotlin", "Zig", "OCaml"}) }, personal: true,
		suggestions: []string{"porting one small CLI you already wrote instead of doing tutorials", "Exercism's track plus the official book in parallel",
			"reading the standard library's source for the collections", "writing a toy key-value store with a write-ahead log"}},
	{problem: "naming the metrics in %[1]s", asked: "how to name the %[1]s metrics",
		slots: func(r *rand.Rand) string { return pick(r, workProject(r).svcs) },
		suggestions: []string{"prefixing every metric with the service name and ending counters in _total", "keeping label cardinality under a hundred values per label",
			"recording durations as histograms in seconds, never milliseconds", "one metric per question the on-call person asks"}},
	{problem: "caching reads of the %[1]s table", asked: "caching lookups on the %[1]s table",
		slots: func(r *rand.Rand) string { return pick(r, workProject(r).tables) },
		suggestions: []string{"a read-through Redis cache with a 60 second TTL", "a materialized view refreshed every five minutes",
			"an in-process LRU of 10,000 entries per pod", "caching at the CDN with stale-while-revalidate"}},
	{problem: "reviewing pull requests in %[1]s", asked: "doing code reviews in %[1]s",
		slots: func(r *rand.Rand) string { return pick(r, projects[:5]).name },
		suggestions: []string{"a 400-line limit per pull request", "reading the tests before the code",
			"a short checklist in the PR template", "requiring two approvals only for migrations"}},
	{problem: "the README for %[1]s", asked: "how to structure the %[1]s README",
		slots: func(r *rand.Rand) string { return pick(r, projects).name },
		suggestions: []string{"a five-minute quickstart at the top and everything else linked", "a section per audience: users, operators, contributors",
			"a copy-pasteable local setup with make targets", "an architecture diagram next to the list of services"}},
	{problem: "cooking %[1]s for a crowd", asked: "making %[1]s for lots of people",
		slots: func(r *rand.Rand) string { return pick(r, dishes) }, personal: true,
		suggestions: []string{"making the base the day before and finishing it on the day", "doubling the recipe but seasoning to taste instead of doubling the salt",
			"two smaller batches instead of one giant pot", "a sheet-pan version in the oven"}},
	{problem: "a trip to %[1]s on a budget", asked: "visiting %[1]s without spending much",
		slots: func(r *rand.Rand) string { return pick(r, cities) }, personal: true,
		suggestions: []string{"a week-long transit pass", "staying outside the centre near a metro line",
			"a free walking tour on the first day", "eating the big meal at lunch when set menus are cheaper"}},
	{problem: "getting back into running after %[1]s", asked: "starting to run again after %[1]s",
		slots: func(r *rand.Rand) string {
			return pick(r, []string{"a two-week cold", "the holidays", "a sprained ankle", "a month of travel", "a busy release"})
		}, personal: true,
		suggestions: []string{"run-walk intervals for the first week", "half the previous weekly distance, then ten percent more each week",
			"three easy runs and no speed work for two weeks", "time-based runs instead of distance"}},
}

func assistantSaidFamily(r *rand.Rand, fam int, types []string, used map[string]bool) []*fact {
	ki := r.IntN(len(adviceKinds))
	k := adviceKinds[ki]
	var out []*fact
	perm := r.Perm(len(k.suggestions))
	for i, typ := range types {
		s := k.slots(r)
		key := func() string { return fmt.Sprintf("adv|%d|%s", ki, s) }
		for tries := 0; used[key()] && tries < 30; tries++ {
			s = k.slots(r)
		}
		if used[key()] {
			break
		}
		used[key()] = true
		sug := k.suggestions[perm[i%len(perm)]]
		prob := fmt.Sprintf(k.problem, s)
		f := &fact{typ: typ, family: fam, personal: k.personal, proj: workProject(r), answer: sug, topic: prob}
		f.user = fmt.Sprintf("I need ideas for %s. What would you suggest? I've already tried the obvious things and I'm running out of patience.", prob)
		f.asst = fmt.Sprintf("For %s, my main suggestion is %s. It's the change with the best effort-to-payoff ratio, and it's easy to undo if it doesn't help.", prob, sug)
		asked := fmt.Sprintf(k.asked, s)
		f.qs = []string{
			fmt.Sprintf("What did you suggest for %s?", asked),
			fmt.Sprintf("What was your recommendation when I asked about %s?", asked),
			fmt.Sprintf("you gave me a tip about %s, what was it", asked),
			fmt.Sprintf("Remind me what you recommended for %s.", asked),
		}
		out = append(out, f)
	}
	return out
}

// --- temporal: one topic discussed in different months --------------------

type temporalKind struct {
	topic     string // %[1]s: scope
	decisions []string
}

var temporalKinds = []temporalKind{
	{topic: "the %[1]s on-call rotation", decisions: []string{"a weekly rotation with a Monday handoff", "a two-week rotation with a secondary on call",
		"a follow-the-sun split with the Lisbon office", "pairing new people with a shadow for their first two shifts", "moving the handoff to Wednesday mornings"}},
	{topic: "the %[1]s release cadence", decisions: []string{"releasing every Tuesday and Thursday", "continuous deploys behind feature flags",
		"a weekly release train on Wednesdays", "a code freeze in the last week of each month", "two releases a day with automatic canaries"}},
	{topic: "the %[1]s database upgrade", decisions: []string{"pg_upgrade with --link during a Sunday window", "logical replication to a fresh Postgres 16 cluster",
		"postponing it until after the audit", "upgrading staging first and waiting two weeks", "moving to the managed service instead of upgrading in place"}},
	{topic: "the logging setup for %[1]s", decisions: []string{"keeping Datadog but dropping debug logs", "moving to Grafana Loki", "self-hosting OpenSearch",
		"sampling info logs at ten percent", "structured JSON logs with a request id on every line"}},
	{topic: "the %[1]s error budget policy", decisions: []string{"freezing feature work when the budget is spent", "a 99.9% monthly target with weekly reviews",
		"counting only customer-facing endpoints", "tracking it per team instead of per service", "dropping the latency SLO and keeping availability"}},
	{topic: "the %[1]s test strategy", decisions: []string{"contract tests between the services instead of end-to-end tests", "running the end-to-end suite nightly only",
		"a coverage floor of 70% on new code", "testcontainers for everything that touches Postgres", "snapshot tests for the API responses"}},
	{topic: "the %[1]s dependency update policy", decisions: []string{"Renovate with automerge for patch releases only", "a monthly dependency day for the whole team",
		"pinning everything and updating only for security fixes", "grouping minor updates into one weekly pull request", "letting Dependabot open PRs but never automerge", "a quarterly upgrade sprint"}},
	{topic: "the %[1]s paging thresholds", decisions: []string{"paging only on customer-facing error rates above 2%", "paging on burn rate over one hour and six hours",
		"no pages at night for anything that can wait until 9am", "a page when the queue is older than ten minutes", "tickets instead of pages for disk warnings", "paging the secondary after fifteen minutes"}},
	{topic: "the holiday deploy freeze for %[1]s", decisions: []string{"a freeze from December 20 to January 3", "no freeze, but two approvals for every deploy",
		"freezing only the payment paths", "a freeze on Fridays through the whole of December", "deploys allowed only in the mornings", "a freeze starting the week before Black Friday"}},
	{topic: "the %[1]s incident review format", decisions: []string{"blameless write-ups within five working days", "a fifteen-minute review in the weekly ops meeting",
		"one shared template with timeline, impact and follow-ups", "reviews only for customer-visible incidents", "a rotating facilitator from another team", "follow-ups tracked as tickets with owners and dates"}},
}

func temporalFamily(r *rand.Rand, fam int, types []string, used map[string]bool) []*fact {
	k := temporalKinds[r.IntN(len(temporalKinds))]
	p := projects[r.IntN(5)]
	topic := fmt.Sprintf(k.topic, p.name)
	for tries := 0; used["temp|"+topic] && tries < 50; tries++ {
		k = temporalKinds[r.IntN(len(temporalKinds))]
		p = projects[r.IntN(5)]
		topic = fmt.Sprintf(k.topic, p.name)
	}
	if used["temp|"+topic] {
		return nil
	}
	used["temp|"+topic] = true
	if len(types) > len(spanMonths()) {
		types = types[:len(spanMonths())]
	}
	ms := spanMonths()
	mperm := r.Perm(len(ms))
	dperm := r.Perm(len(k.decisions))
	if len(types) > len(k.decisions) {
		types = types[:len(k.decisions)] // each month its own decision
	}
	var out []*fact
	for i, typ := range types {
		m := ms[mperm[i]]
		dec := k.decisions[dperm[i%len(dperm)]]
		who := pick(r, people)
		f := &fact{typ: typ, family: fam, proj: p, answer: dec, topic: topic, when: dayIn(r, m)}
		f.user = fmt.Sprintf("We had the meeting about %s today with %s. I'm trying to write up the outcome: the proposals were basically keep things as they are, or change them. Can you help me phrase the summary?", topic, who)
		if r.IntN(2) == 0 {
			f.evidUser = true
			f.user = fmt.Sprintf("Meeting notes on %s, for the record: we decided on %s. %s will update the wiki. Can you turn this into a short announcement for the team channel?", topic, dec, who)
			f.asst = fmt.Sprintf("Here's a short announcement about %s that you can post. It explains the change, who to ask, and when it takes effect, without rehashing the whole discussion.", topic)
		} else {
			f.asst = fmt.Sprintf("Here's a summary you can paste: after discussing %s, the team decided on %s. The main reasons were less toil and clearer ownership; we'll revisit in a quarter.", topic, dec)
		}
		mn := monthName(m)
		f.qs = []string{
			fmt.Sprintf("What did we decide in %s about %s?", mn, topic),
			fmt.Sprintf("Back in %s, what was the plan for %s?", mn, topic),
			fmt.Sprintf("what was agreed on %s in %s", topic, mn),
			fmt.Sprintf("In %s we talked about %s. What did we settle on?", mn, topic),
		}
		out = append(out, f)
	}
	return out
}

// --- update: a value that changed; only the newest is right --------------

type updateKind struct {
	param    string // %[1]s: service
	value    func(r *rand.Rand, i int) string
	personal bool
}

var updateKinds = []updateKind{
	{param: "the connection pool size for %[1]s", value: func(r *rand.Rand, i int) string { return fmt.Sprintf("%d connections", 16+12*i+r.IntN(6)) }},
	{param: "the request timeout on %[1]s", value: func(r *rand.Rand, i int) string { return fmt.Sprintf("%d.%d seconds", 2+2*i, r.IntN(10)) }},
	{param: "the replica count for %[1]s", value: func(r *rand.Rand, i int) string { return fmt.Sprintf("%d replicas", 3+3*i+r.IntN(2)) }},
	{param: "the memory limit for %[1]s", value: func(r *rand.Rand, i int) string { return fmt.Sprintf("%dMi", 384+256*i+64*r.IntN(3)) }},
	{param: "the batch size in %[1]s", value: func(r *rand.Rand, i int) string { return fmt.Sprintf("%d rows per batch", 250+250*i+50*r.IntN(4)) }},
	{param: "the daily standup time for the %[1]s team", value: func(r *rand.Rand, i int) string {
		return fmt.Sprintf("%d:%02d", 9+i%3, 15*r.IntN(4))
	}},
	{param: "the retry limit for %[1]s", value: func(r *rand.Rand, i int) string { return fmt.Sprintf("%d retries", 2+2*i+r.IntN(2)) }},
	{param: "the cache TTL in %[1]s", value: func(r *rand.Rand, i int) string { return fmt.Sprintf("%d seconds of TTL", 30+45*i+5*r.IntN(4)) }},
	{param: "the rate limit on %[1]s", value: func(r *rand.Rand, i int) string { return fmt.Sprintf("%d requests per second", 100+150*i+10*r.IntN(5)) }},
	{param: "the autoscaling maximum for %[1]s", value: func(r *rand.Rand, i int) string { return fmt.Sprintf("max %d pods", 8+6*i+r.IntN(3)) }},
	{param: "the p99 alert threshold for %[1]s", value: func(r *rand.Rand, i int) string { return fmt.Sprintf("%d ms at p99", 300+250*i+10*r.IntN(5)) }},
	{param: "the statement timeout used by %[1]s", value: func(r *rand.Rand, i int) string { return fmt.Sprintf("statement_timeout=%ds", 5+10*i+r.IntN(3)) }},
	{param: "the worker concurrency of %[1]s", value: func(r *rand.Rand, i int) string { return fmt.Sprintf("%d workers", 4+4*i+r.IntN(2)) }},
}

var personalUpdates = []updateKind{
	{param: "my weekly running mileage", personal: true, value: func(r *rand.Rand, i int) string { return fmt.Sprintf("%d km a week", 20+8*i+r.IntN(5)) }},
	{param: "my rent", personal: true, value: func(r *rand.Rand, i int) string { return fmt.Sprintf("€%d,%03d a month", 1, 250+60*i+10*r.IntN(5)) }},
	{param: "my coffee-to-water ratio", personal: true, value: func(r *rand.Rand, i int) string { return fmt.Sprintf("1:%d", 14+i) }},
	{param: "my daily screen-time limit", personal: true, value: func(r *rand.Rand, i int) string { return fmt.Sprintf("%d minutes", 120-20*i) }},
}

func updateFamily(r *rand.Rand, fam int, used map[string]bool) []*fact {
	var k updateKind
	var p *project
	param := ""
	for tries := 0; tries < 50 && (param == "" || used["upd|"+param]); tries++ {
		if r.IntN(6) == 0 {
			k = personalUpdates[r.IntN(len(personalUpdates))]
			p = projects[5]
			param = k.param
		} else {
			k = updateKinds[r.IntN(len(updateKinds))]
			p = workProject(r)
			param = fmt.Sprintf(k.param, pick(r, p.svcs))
		}
	}
	if used["upd|"+param] {
		return nil
	}
	used["upd|"+param] = true
	n := 2 + r.IntN(3)
	// Increasing dates, spread over the span.
	ms := spanMonths()
	idx := r.Perm(len(ms))[:n]
	sortInts(idx)
	var out []*fact
	prev := ""
	for i := 0; i < n; i++ {
		v := k.value(r, i)
		f := &fact{family: fam, personal: k.personal, proj: p, answer: v, topic: param, when: dayIn(r, ms[idx[i]])}
		if i == n-1 {
			f.typ = TypeUpdate
		}
		switch {
		case prev == "":
			f.user = fmt.Sprintf("Setting this down so I remember: %s is %s for now. Does that sound reasonable to you?", param, v)
			f.evidUser = true
			f.asst = fmt.Sprintf("That sounds like a reasonable starting point for %s. Keep an eye on it for a couple of weeks and adjust if the numbers say otherwise.", param)
		case r.IntN(2) == 0:
			f.user = fmt.Sprintf("Quick update: we changed %s again. It was %s, and as of today it's %s. Can you update the notes?", param, prev, v)
			f.evidUser = true
			f.asst = fmt.Sprintf("Noted — I've updated %s in the notes. The change should show up in the dashboards within a day or so.", param)
		default:
			f.user = fmt.Sprintf("We're revisiting %s. It's %s right now but the graphs from last week look bad, and we're changing it today. What should it be?", param, prev)
			f.asst = fmt.Sprintf("Looking at those numbers, set %s to %s (it was %s). That gives enough headroom for the peaks without hiding real problems.", param, v, prev)
			f.answer = v
		}
		f.qs = []string{
			fmt.Sprintf("What's %s now?", param),
			fmt.Sprintf("What is the current value of %s?", param),
			fmt.Sprintf("what did we last set %s to", param),
			fmt.Sprintf("What is %s set to these days?", param),
		}
		prev = v
		out = append(out, f)
	}
	return out
}

func sortInts(xs []int) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
