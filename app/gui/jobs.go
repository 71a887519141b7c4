package gui

import (
	"context"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// progress is what a long job reports: how far it is and what it is doing.
type progress func(done, total int, doing string)

// job shows one long piece of work at a time: a progress bar, a line saying
// what is happening and a Cancel button. The work runs off the UI goroutine;
// its reports are coalesced so a fast loop does not flood the UI.
type job struct {
	u      *ui
	bar    *widget.ProgressBar
	status *widget.Label
	stop   *widget.Button
	box    *fyne.Container

	cancel  context.CancelFunc // set while running
	started time.Time
}

func newJob(u *ui) *job {
	j := &job{u: u, bar: widget.NewProgressBar(), status: widget.NewLabel("")}
	j.status.Truncation = fyne.TextTruncateEllipsis
	j.stop = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), j.Cancel)
	j.box = container.NewBorder(nil, nil, nil, j.stop, container.NewVBox(j.status, j.bar))
	j.box.Hide()
	return j
}

// running says whether work is under way.
func (j *job) running() bool { return j.cancel != nil }

// Cancel asks the running work to stop.
func (j *job) Cancel() {
	if j.cancel != nil {
		j.cancel()
		j.status.SetText("Cancelling…")
		j.stop.Disable()
	}
}

// start runs work in the background with a progress callback, then calls
// done on the UI goroutine with the work's error (context.Canceled when the
// person cancelled). Only one work runs at a time; start returns false if
// one is already running.
func (j *job) start(what string, work func(ctx context.Context, report progress) error, done func(err error)) bool {
	if j.running() {
		return false
	}
	ctx, cancel := context.WithCancel(j.u.ctx)
	j.cancel = cancel
	j.started = time.Now()
	j.bar.SetValue(0)
	j.status.SetText(what + "…")
	j.stop.Enable()
	j.box.Show()

	var (
		mu      sync.Mutex
		pending bool
		last    struct {
			done, total int
			doing       string
		}
	)
	report := func(done, total int, doing string) {
		mu.Lock()
		last.done, last.total, last.doing = done, total, doing
		if pending {
			mu.Unlock()
			return
		}
		pending = true
		mu.Unlock()
		fyneDo(func() {
			mu.Lock()
			d, t, s := last.done, last.total, last.doing
			pending = false
			mu.Unlock()
			if j.cancel == nil || ctx.Err() != nil {
				return
			}
			if t > 0 {
				j.bar.SetValue(float64(d) / float64(t))
			}
			if s != "" {
				j.status.SetText(s)
			}
		})
	}
	j.u.goBackground(func(context.Context) {
		err := work(ctx, report)
		fyneDo(func() {
			cancel()
			j.cancel = nil
			j.box.Hide()
			done(err)
		})
	})
	return true
}
