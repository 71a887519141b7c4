package recalldata

// The vocabulary of the synthetic history. Every list is fixed and ordered:
// the generator draws from them with its seeded source, so a seed always
// gives the same history.

// equipment is a kind of machine: the letter of its identifiers and its noun.
type equipment struct {
	Letter string
	Noun   string
}

var equipmentTypes = []equipment{
	{"K", "kiln"}, {"P", "pump"}, {"F", "fan"}, {"C", "compressor"},
	{"M", "mixer"}, {"B", "boiler"}, {"H", "hoist"}, {"T", "turbine"},
	{"D", "dryer"}, {"G", "grinder"}, {"X", "extruder"}, {"R", "chiller"},
}

// sites are single words, so a question can name one in plain words.
var sites = []string{
	"North", "South", "East", "West", "Riverside", "Harbor", "Lakeside", "Hilltop",
	"Millbrook", "Oakridge", "Pinecrest", "Stonebridge", "Fairview", "Redwood",
	"Ashford", "Kingsley",
}

// people own tasks. Small talk never uses these names.
var people = []string{
	"Ravi", "Marta", "Jonas", "Aiko", "Tomasz", "Priya", "Lena", "Diego", "Sanne",
	"Kwame", "Ingrid", "Mateo", "Yusuf", "Chloe", "Bogdan", "Farah", "Henrik",
	"Nadia", "Oskar", "Leila", "Emeka", "Greta", "Hiroshi", "Ines", "Anouk",
	"Pavel", "Rosa", "Tariq", "Vera", "Wendell", "Zofia", "Arjun", "Beatriz",
	"Callum", "Dalia", "Eamon", "Fiona", "Gustavo", "Hana", "Ivo", "Jelena",
	"Kofi", "Lucia", "Magnus", "Noor", "Odette", "Rafael", "Svetlana", "Teodor",
	"Ulla", "Viktor", "Xenia", "Yara", "Zeynep",
}

// topic is one subject a fact can be about. Fact is the wording the
// conversation uses; Long the wording of the long question; Short the words
// of an agent's query; NoID the paraphrase of an identifier-free question,
// which deliberately avoids some of the fact's words. Key is a lower-case
// substring that every wording of the fact contains.
type topic struct {
	ID    string
	Fact  []string
	Long  string
	Short string
	NoID  string
	Key   string
}

// issues are what tickets are raised for.
var issues = []topic{
	{ID: "vibration", Fact: []string{"vibration alarm keeps coming back", "vibration alarm came back again"},
		Long: "recurring vibration alarm", Short: "vibration alarm", NoID: "repeated shaking warnings", Key: "vibration alarm"},
	{ID: "seal", Fact: []string{"seal is leaking", "seal started leaking"},
		Long: "leaking seal", Short: "seal leak", NoID: "seal that was dripping", Key: "seal"},
	{ID: "bearing", Fact: []string{"bearing is running hot", "bearing was running hot"},
		Long: "overheating bearing", Short: "hot bearing", NoID: "bearing overheating", Key: "bearing"},
	{ID: "belt", Fact: []string{"drive belt keeps slipping", "drive belt is slipping"},
		Long: "slipping drive belt", Short: "belt slip", NoID: "belt that kept sliding", Key: "slipping"},
	{ID: "trip", Fact: []string{"motor keeps tripping", "motor tripped twice"},
		Long: "motor that kept tripping", Short: "motor trip", NoID: "motor cutting out", Key: "motor"},
	{ID: "pressure", Fact: []string{"discharge pressure keeps dropping", "we are losing discharge pressure"},
		Long: "drop in discharge pressure", Short: "pressure drop", NoID: "low outlet pressure", Key: "pressure"},
	{ID: "gearbox", Fact: []string{"gearbox is making a grinding noise", "gearbox started grinding"},
		Long: "grinding gearbox", Short: "gearbox noise", NoID: "noisy gear train", Key: "gearbox"},
	{ID: "oil", Fact: []string{"oil sample came back contaminated", "oil analysis showed contamination"},
		Long: "contaminated oil sample", Short: "oil contamination", NoID: "dirty lube oil", Key: "contaminat"},
	{ID: "sensor", Fact: []string{"temperature sensor is drifting", "temperature sensor keeps drifting"},
		Long: "drifting temperature sensor", Short: "sensor drift", NoID: "temperature readings wandering", Key: "temperature sensor"},
	{ID: "crack", Fact: []string{"there is a hairline crack in the housing", "a crack showed up in the housing"},
		Long: "cracked housing", Short: "housing crack", NoID: "cracked casing", Key: "housing"},
	{ID: "panel", Fact: []string{"control panel keeps throwing fault codes", "control panel is throwing fault codes"},
		Long: "control panel faults", Short: "panel fault", NoID: "fault codes on the controls", Key: "fault codes"},
	{ID: "coolant", Fact: []string{"coolant is leaking from the jacket", "coolant jacket is leaking"},
		Long: "coolant leak", Short: "coolant leak", NoID: "coolant dripping from the jacket", Key: "coolant"},
}

// tasks are what people take on.
var tasks = []topic{
	{ID: "lubrication", Fact: []string{"lubrication"}, Long: "lubrication", Short: "lubrication", NoID: "greasing", Key: "lubrication"},
	{ID: "inspection", Fact: []string{"monthly inspection"}, Long: "monthly inspection", Short: "monthly inspection", NoID: "monthly check", Key: "monthly inspection"},
	{ID: "calibration", Fact: []string{"calibration"}, Long: "calibration", Short: "calibration", NoID: "recalibrating the gauges", Key: "calibration"},
	{ID: "filters", Fact: []string{"filter replacement"}, Long: "filter replacement", Short: "filter replacement", NoID: "swapping the filters", Key: "filter replacement"},
	{ID: "alignment", Fact: []string{"shaft alignment"}, Long: "shaft alignment", Short: "shaft alignment", NoID: "lining up the shaft", Key: "shaft alignment"},
	{ID: "spares", Fact: []string{"spare parts order"}, Long: "spare parts order", Short: "spare parts", NoID: "ordering spares", Key: "spare parts"},
	{ID: "shutdown", Fact: []string{"shutdown plan"}, Long: "shutdown plan", Short: "shutdown plan", NoID: "planning the outage", Key: "shutdown plan"},
	{ID: "audit", Fact: []string{"safety audit"}, Long: "safety audit", Short: "safety audit", NoID: "safety walk", Key: "safety audit"},
	{ID: "survey", Fact: []string{"vibration survey"}, Long: "vibration survey", Short: "vibration survey", NoID: "vibration readings round", Key: "vibration survey"},
	{ID: "belts", Fact: []string{"belt replacement"}, Long: "belt replacement", Short: "belt replacement", NoID: "changing the belts", Key: "belt replacement"},
	{ID: "firmware", Fact: []string{"firmware update"}, Long: "firmware update", Short: "firmware update", NoID: "controller software upgrade", Key: "firmware update"},
	{ID: "cleaning", Fact: []string{"deep clean"}, Long: "deep clean", Short: "deep clean", NoID: "thorough scrub-down", Key: "deep clean"},
}

// decisions are what gets decided and logged with a reference.
var decisions = []topic{
	{ID: "replace", Fact: []string{"replace it rather than rebuild it"}, Long: "replace it instead of rebuilding", Short: "replace vs rebuild", NoID: "swap it out instead of repairing", Key: "rather than rebuild"},
	{ID: "nightshift", Fact: []string{"move its maintenance to the night shift"}, Long: "move maintenance to the night shift", Short: "night shift maintenance", NoID: "do the servicing overnight", Key: "night shift"},
	{ID: "synthetic", Fact: []string{"switch it to synthetic oil"}, Long: "switch to synthetic oil", Short: "synthetic oil", NoID: "change to a synthetic lubricant", Key: "synthetic oil"},
	{ID: "runtoshutdown", Fact: []string{"keep it running until the planned shutdown"}, Long: "keep running until the planned shutdown", Short: "run until shutdown", NoID: "keep it going until the outage", Key: "until the planned shutdown"},
	{ID: "spare", Fact: []string{"buy a spare unit"}, Long: "buy a spare unit", Short: "spare unit purchase", NoID: "purchase a backup", Key: "spare unit"},
	{ID: "decommission", Fact: []string{"decommission it at year end"}, Long: "decommission it at year end", Short: "decommission", NoID: "retire it in December", Key: "decommission"},
	{ID: "guard", Fact: []string{"add a guard over the coupling"}, Long: "add a coupling guard", Short: "coupling guard", NoID: "install guarding around the coupling", Key: "coupling"},
	{ID: "outsource", Fact: []string{"outsource the overhaul"}, Long: "outsource the overhaul", Short: "outsource overhaul", NoID: "contract out the rebuild", Key: "outsource"},
	{ID: "frequency", Fact: []string{"double the inspection frequency"}, Long: "double the inspection frequency", Short: "inspection frequency", NoID: "inspect it twice as often", Key: "inspection frequency"},
	{ID: "vsd", Fact: []string{"fit a variable speed drive"}, Long: "fit a variable speed drive", Short: "variable speed drive", NoID: "retrofit a speed controller", Key: "variable speed drive"},
}

// quantity is a number a production line reports week after week.
type quantity struct {
	ID    string
	Name  string  // as written: "reject rate"
	Min   float64 // value range
	Max   float64
	Unit  string // appended to the value: "%", " h", " s"
	Short string // agent-style query words
}

var quantities = []quantity{
	{ID: "reject", Name: "reject rate", Min: 0.8, Max: 6.5, Unit: "%", Short: "reject rate"},
	{ID: "scrap", Name: "scrap rate", Min: 0.5, Max: 4.5, Unit: "%", Short: "scrap rate"},
	{ID: "oee", Name: "OEE", Min: 55, Max: 92, Unit: "%", Short: "OEE"},
	{ID: "downtime", Name: "unplanned downtime", Min: 1.5, Max: 22, Unit: " h", Short: "downtime hours"},
	{ID: "yield", Name: "first-pass yield", Min: 88, Max: 99.5, Unit: "%", Short: "first pass yield"},
	{ID: "cycle", Name: "average cycle time", Min: 28, Max: 75, Unit: " s", Short: "cycle time"},
}

// Small talk: the padding around each fact. It never names a site, a
// machine noun, a person of the people list or a number with a unit, and it
// does use everyday senses of the words the questions use (ticket, owner,
// decision, latest, rate, line, alarm, leak, oil), as real chat does.
var smallOpeners = []string{
	"Morning! Hope your weekend was good.",
	"Hey, quick break between meetings.",
	"Hi there, it has been a long week already.",
	"Good afternoon, I finally got a coffee.",
	"Hello again, the office is freezing today.",
	"Hi! I just got back from lunch.",
	"Hey, I only have a few minutes before the stand-up.",
	"Morning, the commute was terrible again.",
	"Hi, my alarm clock did not go off this morning, so I am running late.",
	"Hello, I was up late watching the latest episode of that detective series.",
	"Hey, the kitchen tap at home started to leak last night.",
	"Hi, I bought concert tickets for next month and I am excited.",
	"Morning, the queue at the canteen was out the door.",
	"Hello, we had a long team lunch and I am a bit sleepy.",
	"Hi, it is raining so hard I could barely see the road.",
	"Hey, I am trying to clear my inbox before the holidays.",
}

// smallTalk pairs a user's everyday question with the assistant's advice.
var smallTalk = [][2]string{
	{"Can you help me word a birthday message for a colleague?",
		"Something like \"Wishing you a brilliant year ahead, thanks for all the help\" works well."},
	{"Any tips for keeping a sourdough starter alive?",
		"Feed it every day at room temperature and it should bounce back."},
	{"I need a polite way to decline a meeting invite.",
		"You could say you have a clash and ask for the notes afterwards."},
	{"What is a good stretch for a stiff neck after a day at the desk?",
		"Roll your shoulders slowly and tilt your head side to side for a minute."},
	{"My dog's owner group wants a name for the weekend walk, any ideas?",
		"How about \"Paws and Coffee\"? Short names stick best."},
	{"We are still waiting for a decision on the holiday rota.",
		"A short friendly nudge with a date you need it by usually moves things along."},
	{"The interest rate on our mortgage went up again.",
		"It may be worth asking the bank what fixing for a few years would cost."},
	{"I changed the oil in my car on Saturday and it took all morning.",
		"The first time always takes longest; next time you will know where everything is."},
	{"I got a parking ticket outside the dentist, which was annoying.",
		"Worth checking the signs; some councils cancel a first one if you appeal politely."},
	{"Can you suggest a quick vegetarian dinner for tonight?",
		"A quick stir fry with tofu and whatever greens you have is hard to beat."},
	{"How long should a good presentation be for a twenty minute slot?",
		"Keep the slides to one idea each and leave five minutes for questions."},
	{"I am thinking about learning to play the guitar again.",
		"Pick a song you love and learn just the chorus first."},
	{"The new coffee beans in the break room are too bitter.",
		"A slightly coarser grind or a splash of milk takes the edge off."},
	{"We are planning a team outing and cannot agree on bowling or karaoke.",
		"Bowling tends to work for mixed groups because nobody has to perform."},
	{"My phone battery drains so fast since the update.",
		"Turning off background refresh for a few apps usually helps the battery."},
	{"Is it worth getting a standing desk?",
		"It helps most if you alternate between sitting and standing through the day."},
	{"I need to write a thank-you note to the catering crew.",
		"A short note naming one specific thing they did is always appreciated."},
	{"What should I read on the train this week?",
		"A light novel or a collection of short stories is ideal for a commute."},
	{"The printer on our floor jammed three times today.",
		"Most jams come from damp paper, so try a fresh ream."},
	{"How do I politely remind people to clean the shared fridge?",
		"A friendly sign with a date for the weekly clear-out does wonders."},
}

var smallReplies = []string{
	"Happy to help with that.",
	"That sounds like a lot, take a breath.",
	"Good question, here are a few ideas.",
	"Sure, let us keep it short and friendly.",
	"That happens to everyone now and then.",
	"Here is a simple way to approach it.",
	"I would keep it light and positive.",
	"A short walk and some water usually helps.",
	"Try to keep the tone warm but clear.",
	"A simple option is usually the best one.",
	"It might be worth asking the group for a quick vote.",
	"You could start with something small and build from there.",
}

var smallClosers = []string{
	"Thanks, that is all for now.",
	"Great, talk later.",
	"Perfect, thanks a lot.",
	"Cheers, I will get back to it.",
	"Thanks! Off to the next meeting.",
	"Lovely, that helps.",
	"Okay, I will let you know how it goes.",
	"Nice, thanks for the help.",
}

var assistantClosers = []string{
	"Anytime. Have a good rest of the day.",
	"You are welcome, good luck with the rest of the week.",
	"Glad to help. Enjoy your afternoon.",
	"No problem at all, talk soon.",
	"Happy to help, take care.",
	"Sounds good. I am here if you need anything else.",
}

// genericTitles are titles of conversations whose title says nothing of
// the fact, as chat apps often name them after the opening small talk.
var genericTitles = []string{
	"Morning catch-up", "Quick questions", "Busy week", "Coffee break chat",
	"Monday notes", "Friday wrap-up", "Random help", "Between meetings",
	"Team lunch plans", "Inbox cleanup", "Desk stretches", "Dinner ideas",
}
