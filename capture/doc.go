// Package capture imports the one session a harness's hook names, as the
// harness writes it, so a session reaches the memory even when the tray app
// never runs: Claude Code's SessionEnd, PreCompact and Stop hooks (JSON on
// stdin) and Codex's notify program (JSON as the last argument).
//
// A hook must never hold up or fail the session it comes from. So the
// hook's own process only reads its input, queues the session (one entry a
// session, which later fires join) and, unless a worker is alive to take it
// in, hands the queue to a detached worker holding one of MaxWorkers slot
// locks; nothing is printed on success; what goes wrong goes to a log in
// the memory folder (LogPath) that `ireneo status` and the app show.
// Imports of one session run one at a time (a lock file per session), and
// SQLite's busy timeout lets them share the memory with the tray app and
// other imports. Stop and Codex's notify fire after every reply, so their
// imports are throttled per session: a queued one waits until a throttle
// after the last began, and so always takes in the last reply.
package capture
