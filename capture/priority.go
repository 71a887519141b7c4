package capture

// BackgroundNice is the niceness of a hook's detached worker (Background).
// Its import shares the machine with the person's agents asking `ireneo
// serve` and the tray app, which an import in a process of its own cannot
// give way to as one inside them does (memory/readsfirst.go). 32 agents
// recalling over MCP while another process imported 1,000 conversations on
// two cores: p99 159 / 245 / 206 ms at nice 0, 134 / 130 / 175 at 10 (the
// import 6–8 s instead of 2–3), 146 / 155 at 19 (10–12 s); BENCHMARKS.md.
const BackgroundNice = 10
