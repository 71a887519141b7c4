package mcpserver

import (
	"context"
	"log/slog"
	"sync"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/memory"
)

// auditQueue is how many calls may wait to be written to the audit log
// before new ones are dropped (and the drop logged).
const auditQueue = 4096

// auditBatch is the most entries written in one transaction.
const auditBatch = 256

// auditLog writes audit entries off the call path: one goroutine batches
// whatever has queued into one transaction, so a burst of calls costs a few
// writes rather than one each.
type auditLog struct {
	mem    *memory.Memory
	log    *slog.Logger
	onCall func(auditlog.Entry)

	mu      sync.Mutex
	written *sync.Cond // signalled after each batch is written
	pending int        // entries accepted but not yet written
	ch      chan auditlog.Entry
	done    chan struct{}
	closed  bool
}

func newAuditLog(m *memory.Memory, log *slog.Logger, onCall func(auditlog.Entry)) *auditLog {
	a := &auditLog{mem: m, log: log, onCall: onCall, ch: make(chan auditlog.Entry, auditQueue), done: make(chan struct{})}
	a.written = sync.NewCond(&a.mu)
	go a.run()
	return a
}

// record queues one entry; it never blocks the call being recorded.
func (a *auditLog) record(e auditlog.Entry) {
	if a.onCall != nil {
		a.onCall(e)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		a.log.Warn("audit log closed; call not recorded", "client", e.Client, "tool", e.Tool)
		return
	}
	select {
	case a.ch <- e:
		a.pending++
	default:
		a.log.Warn("audit queue full; call not recorded", "client", e.Client, "tool", e.Tool)
	}
}

func (a *auditLog) run() {
	defer close(a.done)
	for e := range a.ch {
		batch := []auditlog.Entry{e}
	fill:
		for len(batch) < auditBatch {
			select {
			case e, ok := <-a.ch:
				if !ok {
					break fill
				}
				batch = append(batch, e)
			default:
				break fill
			}
		}
		if err := auditlog.Add(context.Background(), a.mem, batch...); err != nil {
			a.log.Error("audit log write failed", "entries", len(batch), "err", err)
		}
		a.mu.Lock()
		a.pending -= len(batch)
		a.written.Broadcast()
		a.mu.Unlock()
	}
}

// flush waits until every entry queued so far is written.
func (a *auditLog) flush() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.pending > 0 {
		a.written.Wait()
	}
}

// close writes what is queued and stops the writer.
func (a *auditLog) close() {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		<-a.done
		return
	}
	a.closed = true
	close(a.ch)
	a.mu.Unlock()
	<-a.done
}
