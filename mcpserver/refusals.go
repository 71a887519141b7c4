package mcpserver

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/ireneo-app/ireneo/auditlog"
)

// RefusedClient is the client name refused requests are audited under: a
// refused request proves no token, so it has no client of its own.
const RefusedClient = "(refused)"

// refusalEvery is how often one kind of refusal is written to the audit log;
// repeats in between are counted into the next entry, so a client stuck on
// a bad token, or a page probing the port, can't flood the log.
const refusalEvery = 10 * time.Second

// refusals writes refused HTTP requests (401, 403) to the audit log, where
// the Activity screen and `ireneo audit` show them, at most once per
// refusalEvery for each of the four reasons.
type refusals struct {
	audit *auditLog
	now   func() time.Time

	mu   sync.Mutex
	seen map[string]*refusalState
}

type refusalState struct {
	last    time.Time
	skipped int
}

func newRefusals(a *auditLog) *refusals {
	return &refusals{audit: a, now: time.Now, seen: map[string]*refusalState{}}
}

// note records one refused request. reason is one of a few fixed phrases
// (it keys the rate limit, so a client varying its headers can't multiply
// entries); detail is the offending value, kept short. Neither may hold a
// secret.
func (f *refusals) note(r *http.Request, status int, reason, detail string) {
	outcome := auditlog.Unauthorized
	if status == http.StatusForbidden {
		outcome = auditlog.Forbidden
	}
	key := outcome + "\x00" + reason
	f.mu.Lock()
	now := f.now()
	st := f.seen[key]
	if st == nil {
		st = &refusalState{}
		f.seen[key] = st
	} else if now.Sub(st.last) < refusalEvery {
		st.skipped++
		f.mu.Unlock()
		return
	}
	repeats := st.skipped
	st.last, st.skipped = now, 0
	f.mu.Unlock()

	args := map[string]any{"reason": reason, "from": r.RemoteAddr}
	if detail != "" {
		args["value"] = truncate(detail, 200)
	}
	if ua := r.UserAgent(); ua != "" {
		args["user_agent"] = truncate(ua, 120)
	}
	if repeats > 0 {
		args["repeats_before"] = repeats
	}
	b, _ := json.Marshal(args)
	f.audit.record(auditlog.Entry{
		TS: now.UTC(), Client: RefusedClient, Tool: r.Method + " " + truncate(r.URL.Path, 100),
		Args: string(b), Outcome: outcome,
	})
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
