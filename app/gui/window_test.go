package gui

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/config"
)

// The real-window test: the built binary in a real X server (Xvfb under
// `make test`) with a real session bus, driven with xdotool, photographed
// with ImageMagick's import, its tray menu read over D-Bus.

// repoRoot is the module root, two folders up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod in %s", root)
	}
	return root
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: run under `make test` (Xvfb) for the real-window test")
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		t.Skip("no D-Bus session bus: run under `make test` (dbus-run-session)")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (scripts/deps.sh installs it)", tool)
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// run runs a command and returns its output, failing the test on error. No
// command may take more than a minute.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// findWindow waits for a visible window named Ireneo.
func findWindow(t *testing.T, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, err := exec.CommandContext(ctx, "xdotool", "search", "--onlyvisible", "--name", "^Ireneo$").Output()
		cancel()
		if err == nil {
			if f := strings.Fields(string(out)); len(f) > 0 {
				return f[0]
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return ""
}

// screenshot saves the screen as name.png in dir once it has settled (two
// captures alike) and differs from prev, the screen before the last action,
// so a slow machine does not photograph the old screen. It fails if the
// window's area is blank: it must have real variation in it.
func screenshot(t *testing.T, dir, name string, prev []byte) []byte {
	t.Helper()
	p := filepath.Join(dir, name+".png")
	var last []byte
	deadline := time.Now().Add(15 * time.Second)
	for {
		run(t, "import", "-window", "root", p)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// A blinking text cursor keeps frames from ever being byte-equal,
		// so "settled" and "changed" allow a few hundred pixels of difference.
		settled := last != nil && pixelsDiffer(data, last) < 400 && (prev == nil || pixelsDiffer(data, prev) >= 400)
		if settled || time.Now().After(deadline) {
			if !settled {
				t.Errorf("%s: the screen did not change or settle in 15s", name)
			}
			last = data
			break
		}
		last = data
		time.Sleep(300 * time.Millisecond)
	}
	img, err := png.Decode(bytes.NewReader(last))
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if sd, colours := pixelSpread(img, image.Rect(0, 0, 1100, 720)); sd < 8 || colours < 16 {
		t.Fatalf("%s looks blank: luminance sd %.1f, %d colours", p, sd, colours)
	}
	return last
}

// pixelsDiffer counts the pixels that differ between two PNG screenshots;
// images that fail to decode or differ in size count as wholly different.
func pixelsDiffer(a, b []byte) int {
	if bytes.Equal(a, b) {
		return 0
	}
	ia, err1 := png.Decode(bytes.NewReader(a))
	ib, err2 := png.Decode(bytes.NewReader(b))
	if err1 != nil || err2 != nil || ia.Bounds() != ib.Bounds() {
		return 1 << 30
	}
	n := 0
	r := ia.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, _ := ia.At(x, y).RGBA()
			r2, g2, b2, _ := ib.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				n++
			}
		}
	}
	return n
}

// pixelSpread is the standard deviation of luminance and the number of
// distinct colours in a region.
func pixelSpread(img image.Image, r image.Rectangle) (float64, int) {
	r = r.Intersect(img.Bounds())
	var sum, sq float64
	n := 0
	colours := map[[3]uint32]bool{}
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			l := 0.299*float64(cr>>8) + 0.587*float64(cg>>8) + 0.114*float64(cb>>8)
			sum += l
			sq += l * l
			n++
			if len(colours) < 1000 {
				colours[[3]uint32{cr >> 8, cg >> 8, cb >> 8}] = true
			}
		}
	}
	mean := sum / float64(n)
	return math.Sqrt(sq/float64(n) - mean*mean), len(colours)
}

// sendKeys sends keys to the window.
func sendKeys(t *testing.T, wid string, keys ...string) {
	t.Helper()
	for _, k := range keys {
		run(t, "xdotool", "key", "--window", wid, "--clearmodifiers", k)
		time.Sleep(150 * time.Millisecond)
	}
}

// trayMenu reads the tray menu over D-Bus: the StatusNotifierItem's name
// and its dbusmenu layout as item id → label.
func trayMenu(t *testing.T, pid int) (string, map[string]int) {
	t.Helper()
	var service string
	deadline := time.Now().Add(15 * time.Second)
	want := fmt.Sprintf("org.kde.StatusNotifierItem-%d-", pid)
	for service == "" && time.Now().Before(deadline) {
		names := run(t, "dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/", "org.freedesktop.DBus.ListNames")
		for _, m := range regexp.MustCompile(`string "([^"]+)"`).FindAllStringSubmatch(names, -1) {
			if strings.HasPrefix(m[1], want) {
				service = m[1]
			}
		}
		if service == "" {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if service == "" {
		t.Fatalf("no %s* name on the session bus", want)
	}
	layout := run(t, "dbus-send", "--session", "--print-reply", "--dest="+service, "/StatusNotifierMenu",
		"com.canonical.dbusmenu.GetLayout", "int32:0", "int32:-1", "array:string:")
	return service, parseLayout(layout)
}

// parseLayout maps each labelled item of a dbusmenu layout to its id: the
// id is the int32 that opens the item's struct, just before its properties.
func parseLayout(layout string) map[string]int {
	items := map[string]int{}
	id := -1
	tok := regexp.MustCompile(`struct \{\s*int32 (\d+)|string "label"\s*variant\s*string "((?:[^"\\]|\\.)*)"`)
	for _, m := range tok.FindAllStringSubmatch(layout, -1) {
		if m[1] != "" {
			id, _ = strconv.Atoi(m[1])
			continue
		}
		items[m[2]] = id
	}
	return items
}

// clickTray activates a tray menu item as a tray host would.
func clickTray(t *testing.T, service string, id int) {
	t.Helper()
	run(t, "dbus-send", "--session", "--print-reply", "--dest="+service, "/StatusNotifierMenu",
		"com.canonical.dbusmenu.Event", "int32:"+strconv.Itoa(id), "string:clicked", "variant:int32:0", "uint32:0")
}

func TestRealWindow(t *testing.T) {
	needTools(t, "xdotool", "import", "dbus-send", "go")
	fakeTrayHost(t) // a panel's tray, so closing the window keeps the app
	// The binary built as a person would; a home of its own, a small
	// memory and a free port.
	app := newRealApp(t, fixtureSessions(), nil)
	shots, bin, envRoot, port := app.shots, app.bin, app.envRoot, app.port

	logPath := filepath.Join(shots, "app.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(bin)
	cmd.Env = app.env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// exited is closed when the app ends; exitErr is then its exit status.
	exited := make(chan struct{})
	var exitErr error
	go func() { exitErr = cmd.Wait(); close(exited) }()
	defer func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	}()

	wid := findWindow(t, 30*time.Second)
	if wid == "" {
		log, _ := os.ReadFile(logPath)
		t.Fatalf("no window named Ireneo appeared in 30s; log:\n%s", log)
	}
	// No window manager runs under Xvfb: focus the window directly (with
	// --sync, xdotool would wait for a WM that never answers).
	run(t, "xdotool", "windowfocus", wid)
	time.Sleep(time.Second) // let the first frame and the data land

	// Search: type, Enter, then the arrows and Enter open the result.
	run(t, "xdotool", "type", "--window", wid, "--delay", "40", phraseBudget)
	sendKeys(t, wid, "Return")
	shot := screenshot(t, shots, "01-search", nil)
	sendKeys(t, wid, "ctrl+a")
	run(t, "xdotool", "type", "--window", wid, "--delay", "40", phraseLongTurn)
	sendKeys(t, wid, "Return")
	time.Sleep(800 * time.Millisecond)
	sendKeys(t, wid, "Down", "Return")
	// The transcript loads and lays out off the UI goroutine after the
	// screen switches; give it time so the shot is not of the empty pane.
	time.Sleep(2500 * time.Millisecond)
	shot = screenshot(t, shots, "02-conversation-at-turn", shot)

	// Each Ctrl+N shows screen N: its tab is the one drawn selected, each
	// one further down the tab bar than the one before.
	names := []string{"search", "conversations", "import", "scrub", "forget", "connect", "activity", "settings", "insights"}
	lastTab := -1.0
	for i, name := range names {
		sendKeys(t, wid, fmt.Sprintf("ctrl+%d", i+1))
		shot = tabShot(t, shots, fmt.Sprintf("%02d-%s", i+3, name), shot, 720, func(y float64) bool { return y >= lastTab+20 })
		y := selectedTabY(t, shot, 720)
		if y < 0 || y < lastTab+20 {
			t.Errorf("%s: the selected tab is drawn at y=%.0f, after y=%.0f for the screen before: not the tab asked for", name, y, lastTab)
		}
		lastTab = y
	}

	// Scrub, Activity and Insights at 1280×800 and 900×600: the window
	// fills the size, and each shot shows its own tab selected.
	sizedShots(t, wid, shots, "", shot, []int{screenScrub, screenActivity, screenInsights})

	// The tray menu, read over D-Bus.
	service, items := trayMenu(t, cmd.Process.Pid)
	for _, want := range []string{traySearch, trayImport, trayStop, trayCopy, "Claude Code", "VS Code", trayScrub, trayOpen, trayQuit,
		fmt.Sprintf("%s127.0.0.1:%d", trayRunning, port)} {
		if _, ok := items[want]; !ok {
			t.Errorf("tray menu has no %q item; it has %q", want, keys(items))
		}
	}
	// The icon's tooltip names the app and its server.
	tip := run(t, "dbus-send", "--session", "--print-reply", "--dest="+service, "/StatusNotifierItem",
		"org.freedesktop.DBus.Properties.Get", "string:org.kde.StatusNotifierItem", "string:ToolTip")
	if want := fmt.Sprintf("Ireneo: MCP server running on 127.0.0.1:%d", port); !strings.Contains(tip, want) {
		t.Errorf("the tray's tooltip is %q, want %q", tip, want)
	}

	// Closing the window keeps the app in the tray; the tray opens it again.
	sendKeys(t, wid, "ctrl+w")
	time.Sleep(500 * time.Millisecond)
	if w := findWindow(t, time.Second); w != "" {
		t.Fatal("Ctrl+W should hide the window")
	}
	select {
	case <-exited:
		t.Fatalf("the app exited when its window closed: %v", exitErr)
	default:
	}
	clickTray(t, service, items[trayOpen])
	if findWindow(t, 10*time.Second) == "" {
		t.Fatal("Open Ireneo in the tray did not bring the window back")
	}

	// Quit from the tray ends the process cleanly.
	clickTray(t, service, items[trayQuit])
	select {
	case <-exited:
		if exitErr != nil {
			t.Fatalf("the app exited with %v", exitErr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Quit in the tray did not end the app")
	}
	log, _ := os.ReadFile(logPath)
	if bytes.Contains(log, []byte("panic")) {
		t.Fatalf("the app panicked:\n%s", log)
	}

	// A first run, on an empty memory: the window opens on Import; Scrub,
	// Activity and Insights say what to do first, so the lower part of
	// their content is empty (no empty table grid, no empty axes).
	empty := filepath.Join(envRoot, "empty-memory")
	first := exec.Command(bin)
	first.Env = append(os.Environ(), config.EnvHome+"="+empty, "LANG=en_US.UTF-8")
	first.Stdout, first.Stderr = logf, logf
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { first.Process.Kill(); first.Wait() }()
	wid = findWindow(t, 30*time.Second)
	if wid == "" {
		t.Fatal("no window on the first run")
	}
	run(t, "xdotool", "windowfocus", wid)
	time.Sleep(time.Second)
	shot = screenshot(t, shots, "first-run-import", nil)
	if y := selectedTabY(t, shot, 720); y < 0 {
		t.Error("first run: no tab drawn selected")
	}
	byName := sizedShots(t, wid, shots, "first-run-", shot, []int{screenScrub, screenActivity, screenInsights})
	for name, img := range byName {
		w, h := 1280, 800
		if strings.HasSuffix(name, "900x600") {
			w, h = 900, 600
		}
		if sd, _ := pixelSpread(img, image.Rect(130, h*2/3, w-10, h-90)); sd > 3 {
			t.Errorf("%s: the lower part of the screen is not empty (luminance sd %.1f): an empty table or chart?", name, sd)
		}
	}
}

// screenNames name the screens in file names, in tab order.
var screenNames = []string{"search", "conversations", "import", "scrub", "forget", "connect", "activity", "settings", "insights"}

// sizedShots photographs the screens at 1280×800 and at 900×600, checking
// that the window fills each size and that the screens' tabs are drawn
// selected in order. It returns the decoded shots by name.
func sizedShots(t *testing.T, wid, dir, prefix string, prev []byte, screens []int) map[string]image.Image {
	t.Helper()
	out := map[string]image.Image{}
	for _, size := range [][2]int{{1280, 800}, {900, 600}} {
		run(t, "xdotool", "windowsize", wid, strconv.Itoa(size[0]), strconv.Itoa(size[1]))
		// Let the resized screen settle.
		screenshot(t, t.TempDir(), "resized", prev)
		// The furthest-down screen asked for is selected first (at the size
		// before it already was): its tab bounds the others', so a shot of
		// the screen before a switch, settled first under load, is known
		// for what it is and taken again.
		last := screens[len(screens)-1]
		sendKeys(t, wid, fmt.Sprintf("ctrl+%d", last+1))
		prev = tabShot(t, t.TempDir(), "last", nil, size[1], func(y float64) bool { return y >= 0 })
		bottom := selectedTabY(t, prev, size[1])
		lastTab := -1.0
		for _, sc := range screens {
			sendKeys(t, wid, fmt.Sprintf("ctrl+%d", sc+1))
			name := fmt.Sprintf("%s%s-%dx%d", prefix, screenNames[sc], size[0], size[1])
			prev = tabShot(t, dir, name, prev, size[1], func(y float64) bool {
				return y > lastTab && (sc == last || y < bottom-10)
			})
			img, err := png.Decode(bytes.NewReader(prev))
			if err != nil {
				t.Fatal(err)
			}
			out[name] = img
			// The window's own background reaches its corner; past it is
			// the bare (black) root window.
			if lum(img.At(size[0]-4, size[1]-4)) == 0 {
				t.Errorf("%s: the window does not fill %dx%d", name, size[0], size[1])
			}
			if size[0] < 1280 && lum(img.At(size[0]+6, 10)) != 0 {
				t.Errorf("%s: the window is wider than %d", name, size[0])
			}
			y := selectedTabY(t, prev, size[1])
			if y < 0 || y <= lastTab || sc != last && y >= bottom-10 {
				t.Errorf("%s: the selected tab is drawn at y=%.0f, after %.0f (the last screen's at %.0f): not the tab asked for", name, y, lastTab, bottom)
			}
			lastTab = y
		}
	}
	return out
}

func lum(c color.Color) uint32 {
	r, g, b, _ := c.RGBA()
	return (r + g + b) >> 8
}

// tabShot is screenshot's settled frame of a screen whose selected tab is
// drawn where ok says: on a loaded machine the frame before the switch
// (the last screen still laying out) can settle first, so it shoots again,
// for up to 10 s, until the new screen's tab is the one drawn selected.
func tabShot(t *testing.T, dir, name string, prev []byte, height int, ok func(y float64) bool) []byte {
	t.Helper()
	shot := screenshot(t, dir, name, prev)
	for deadline := time.Now().Add(10 * time.Second); !ok(selectedTabY(t, shot, height)) && time.Now().Before(deadline); {
		time.Sleep(300 * time.Millisecond)
		shot = screenshot(t, dir, name, nil)
	}
	return shot
}

// selectedTabY is the middle height of the selected tab in a screenshot:
// the rows of the leading tab bar (left of x=110, under the menu bar,
// above height) where its name and marker are in the primary colour,
// blue in either theme. It is -1 if no tab is drawn selected.
func selectedTabY(t *testing.T, shot []byte, height int) float64 {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	sum, n := 0, 0
	for y := 30; y < height && y < img.Bounds().Dy(); y++ {
		for x := 0; x < 110; x++ { // short of the marker and the screen's own buttons
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			if b > 180 && b > r+90 && b > g+40 {
				sum += y
				n++
			}
		}
	}
	if n < 20 {
		return -1
	}
	return float64(sum) / float64(n)
}

func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
