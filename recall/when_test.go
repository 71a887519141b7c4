package recall

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

func TestParseWhenTable(t *testing.T) {
	now := time.Date(2026, 6, 10, 15, 0, 0, 0, time.UTC) // a Wednesday
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		q        string
		from, to time.Time
		filter   bool
		order    int
		anchor   []string
		after    int
	}{
		{q: "what did I eat on 8 May?", from: day(2026, 5, 8), to: day(2026, 5, 9), filter: true},
		{q: "what did I eat on the 8th of May", from: day(2026, 5, 8), to: day(2026, 5, 9), filter: true},
		{q: "what did we decide on May 8th, 2025?", from: day(2025, 5, 8), to: day(2025, 5, 9), filter: true},
		{q: "notes from 2024-05-08", from: day(2024, 5, 8), to: day(2024, 5, 9), filter: true},
		{q: "what did I do on Wednesday 10 December 2025?", from: day(2025, 12, 10), to: day(2025, 12, 11), filter: true}, // the date says which Wednesday
		{q: "what did I do on Monday, May 4?", from: day(2026, 5, 4), to: day(2026, 5, 5), filter: true},
		{q: "where did he go in July?", from: day(2025, 7, 1), to: day(2025, 8, 1), filter: true}, // the latest July before June 2026
		{q: "what did we decide in March about the release cadence?", from: day(2026, 3, 1), to: day(2026, 4, 1), filter: true},
		{q: "where did he go in the first week of 2023?", from: day(2023, 1, 1), to: day(2023, 1, 8), filter: true},
		{q: "which herb did I archive during the last few days in August?", from: day(2025, 8, 21), to: day(2025, 9, 1), filter: true},
		{q: "what did I cook last week?", from: day(2026, 6, 1), to: day(2026, 6, 8), filter: true},
		{q: "what did I read yesterday", from: day(2026, 6, 9), to: day(2026, 6, 10), filter: true},
		{q: "what did I buy last Friday?", from: day(2026, 6, 5), to: day(2026, 6, 6), filter: true},
		{q: "what did we ship in the past 3 days", from: now.Add(-72 * time.Hour), to: now},
		{q: "what did I cook this week?", from: day(2026, 6, 8), to: day(2026, 6, 15)},
		{q: "Hello. Last Tuesday's dinner meant I missed the class. The notes helped. What do we do next?"}, // a message: its question names no date
		{q: "In March we talked about the release cadence. What did we settle on?", from: day(2026, 3, 1), to: day(2026, 4, 1), filter: true},
		{q: "what did I plan two weeks ago?", from: now.Add(-21 * 24 * time.Hour), to: now.Add(-7 * 24 * time.Hour)},
		{q: "what did I try earlier this year", from: day(2026, 1, 1), to: now},
		{q: "when did I first try the sourdough recipe?", order: -1},
		{q: "what happened the first time the pump failed", order: -1},
		{q: "what did I order most recently at the cafe?", order: 1},
		{q: "what happened right after the move?", anchor: []string{"the", "move"}, after: 1},
		{q: "who did I call directly after the interview, and why?", anchor: []string{"the", "interview"}, after: 1},
		{q: "what did I pack just before the trip to Lisbon", anchor: []string{"the", "trip", "to", "lisbon"}, after: -1},
		{q: "Following my early visit to El Magnífico on July 24th, where did I next have coffee?", from: day(2025, 7, 24), filter: true,
			anchor: []string{"my", "early", "visit", "to", "el", "magnífico", "on", "july", "24th"}, after: 1},
		{q: "may I ask about the pump"},
		{q: "what port did we use, 8080 or 20000"},
		{q: "is P-003 still running too hot?"},
	} {
		w := parseWhen(c.q, now)
		if !w.from.Equal(c.from) || !w.to.Equal(c.to) || w.filter != c.filter || w.order != c.order || !reflect.DeepEqual(w.anchor, c.anchor) || w.after != c.after {
			t.Errorf("parseWhen(%q) = [%v, %v) filter %v order %d anchor %q %d;\nwant [%v, %v) filter %v order %d anchor %q %d",
				c.q, w.from, w.to, w.filter, w.order, w.anchor, w.after, c.from, c.to, c.filter, c.order, c.anchor, c.after)
		}
	}
}

// The question's dates and order, resolved against the time of asking,
// against each turn's own time.
func TestDatesInTheQuestion(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	now := time.Date(2026, 6, 10, 18, 0, 0, 0, time.UTC)
	meals := []string{"a bowl of ramen", "a mushroom risotto with a green salad", "fish tacos", "a lentil soup", "a cheese omelette", "a chickpea curry"}
	var ss []*funes.Session
	for i := range 60 {
		d := time.Date(2026, 4, 1, 19, 30, 0, 0, time.UTC).AddDate(0, 0, i)
		meal := meals[i%len(meals)]
		if d.Month() == time.May && d.Day() == 8 {
			meal = "a saffron paella with prawns"
		}
		ss = append(ss, conv(fmt.Sprintf("food-%02d", i), funes.HarnessChatGPT, "Food log", "", d,
			fmt.Sprintf("Food log: tonight I ate %s. Can you estimate the calories?", meal), "Roughly 650 kcal, depending on the portion."))
	}
	// The same day a year before, and a turn that only mentions the date.
	ss = append(ss,
		conv("food-2025", funes.HarnessChatGPT, "Food log", "", time.Date(2025, 5, 8, 19, 0, 0, 0, time.UTC),
			"Food log: tonight I ate a pizza. Can you estimate the calories?", "About 900 kcal."),
		conv("plans", funes.HarnessClaude, "Plans", "", time.Date(2026, 5, 20, 9, 0, 0, 0, time.UTC),
			"What should I eat before the race on 8 May next year?", "Something light and familiar."),
		conv("sourdough-1", funes.HarnessClaude, "Baking", "", time.Date(2026, 2, 3, 9, 0, 0, 0, time.UTC),
			"I baked sourdough for the first try today: dense crumb, flat loaf.", "Give the dough a longer bulk rise next time."),
		conv("sourdough-2", funes.HarnessClaude, "Baking", "", time.Date(2026, 5, 3, 9, 0, 0, 0, time.UTC),
			"I baked sourdough again today: open crumb, good oven spring.", "That longer bulk rise paid off."),
		conv("move", funes.HarnessChatGPT, "Moving", "", time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC),
			"The move to the new flat is done, finally.", "Congratulations on the move!"),
		conv("after", funes.HarnessChatGPT, "Flat", "", time.Date(2026, 3, 16, 9, 0, 0, 0, time.UTC),
			"What happened with the internet: the router from the move was dead, so I bought a new one.", "Good call."),
		conv("later", funes.HarnessChatGPT, "Flat", "", time.Date(2026, 5, 16, 9, 0, 0, 0, time.UTC),
			"What happened with the heating in the flat: the plumber fixed a valve.", "Glad it is warm again."))
	mustIngest(t, m, ss...)
	for _, c := range []struct{ q, want string }{
		{"what did I eat on 8 May?", "food-37"},                      // 2026-05-08
		{"what did I eat on the 8th of May 2025?", "food-2025"},      // the year named
		{"when did I first bake sourdough?", "sourdough-1"},          // the first time
		{"what did I bake most recently, sourdough?", "sourdough-2"}, // the latest
		{"what happened right after the move?", "after"},
	} {
		res, err := Recall(ctx, m, Options{Query: c.q, Now: now, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].SessionID != c.want {
			got := []string{}
			for _, h := range res.Hits {
				got = append(got, h.SessionID)
			}
			t.Errorf("%q: hits %v, want %s first", c.q, got, c.want)
		}
	}
	// Control: without the stage the 8 May question does not find its day first.
	tn := DefaultTuning
	tn.Dates = false
	res, err := Recall(ctx, m, Options{Query: "what did I eat on 8 May?", Now: now, K: 5, Tuning: &tn})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].SessionID == "food-37" {
		t.Fatalf("control: %v %+v", err, res.Hits)
	}
	// A date with nothing said on it narrows nothing.
	res, err = Recall(ctx, m, Options{Query: "what did I eat on 3 January?", Now: now, K: 5})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("a day with nothing on it: %v %+v", err, res)
	}
}

// A question that names a day and nothing else ("what did I do on 10
// December?") is answered by that day's turns: they hold the date by their
// time, not their words. Seen with the real binary on the real fixtures: a
// turn of another month that mentioned "2025-12-01" ranked above the whole
// day, whose turns' coverage of the question was 0.
func TestQuestionNamingOnlyADay(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	now := time.Date(2026, 1, 20, 9, 0, 0, 0, time.UTC)
	day := time.Date(2025, 12, 10, 19, 37, 0, 0, time.UTC)
	mustIngest(t, m,
		conv("hello", funes.HarnessClaudeCode, "create hello.py, md and js", "", day,
			"create hello.py, md and js", "Created three files: hello.py, hello.md and hello.js.", "delete js", "Removed hello.js."),
		conv("costs", funes.HarnessClaudeCode, "Analytics", "", time.Date(2026, 1, 14, 19, 20, 0, 0, time.UTC),
			"Show the weekly cost report.", "codemie analytics --from 2025-12-01 --to 2025-12-07 --export csv: the week of 1 December 2025, 10 runs."),
		conv("bakery", funes.HarnessClaude, "Bakery", "", time.Date(2024, 10, 29, 15, 0, 0, 0, time.UTC),
			"Compare the bakeries on my street.", "The one on the corner opens at 10; December hours differ."))
	for _, q := range []string{
		"what did I do on 10 December 2025?",
		"what did I do on 2025-12-10?",
		"what did I do on Wednesday 10 December 2025?",
		"what happened on 10 December 2025",
	} {
		res, err := Recall(ctx, m, Options{Query: q, Now: now, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].SessionID != "hello" {
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.SessionID+" "+h.TS.Format(time.DateOnly))
			}
			t.Errorf("%q: hits %v; want that day's conversation first", q, got)
		}
	}
	// A day none of whose turns holds a word of the question, nor its date
	// in words ("last week" is no word of theirs): its turns are listed.
	res, err := Recall(ctx, m, Options{Query: "what did I do last week?", Now: time.Date(2025, 12, 17, 9, 0, 0, 0, time.UTC), K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].SessionID != "hello" || res.Hits[0].Role != funes.RoleUser {
		t.Fatalf("last week: %+v; want the week's conversation, the person's words first", res.Hits)
	}
}
