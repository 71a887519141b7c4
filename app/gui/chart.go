package gui

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Charts are drawn by gonum/plot into an image, off the UI goroutine, at
// the widget's size in pixels, and drawn again when it is resized or the
// theme changes. The colours of text and axes come from the Fyne theme.

// chartFont is gonum/plot's sans serif, closer to Fyne's own text.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// stack is one series of a stacked bar chart.
type stack struct {
	name   string
	colour color.Color
	values []float64
}

// barSpec is what a stacked bar chart shows: bars at 0…n-1, labelled on
// the x axis by label (which returns "" for unlabelled positions).
type barSpec struct {
	n      int
	stacks []stack
	label  func(i int) string
}

// chartColours are the theme's colours, read on the UI goroutine.
type chartColours struct {
	text, grid color.Color
}

func themeColours(a fyne.App) chartColours {
	th, v := a.Settings().Theme(), a.Settings().ThemeVariant()
	return chartColours{text: th.Color(theme.ColorNameForeground, v), grid: th.Color(theme.ColorNameSeparator, v)}
}

// chart is a widget showing one stacked bar chart.
type chart struct {
	widget.BaseWidget
	u     *ui
	img   *canvas.Image
	spec  barSpec
	drawn fyne.Size // the size the current image was drawn at
	seq   int       // drops renders overtaken by newer ones
}

func newChart(u *ui) *chart {
	c := &chart{u: u, img: canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1)))}
	c.img.FillMode = canvas.ImageFillStretch
	c.img.ScaleMode = canvas.ImageScaleSmooth
	c.ExtendBaseWidget(c)
	return c
}

func (c *chart) CreateRenderer() fyne.WidgetRenderer { return &chartRenderer{c: c} }

// MinSize keeps a chart readable in a small window.
func (c *chart) MinSize() fyne.Size { return fyne.NewSize(360, 220) }

// Resize draws the chart again at its new size once it stops changing.
func (c *chart) Resize(s fyne.Size) {
	c.BaseWidget.Resize(s)
	if math.Abs(float64(s.Width-c.drawn.Width)) > 2 || math.Abs(float64(s.Height-c.drawn.Height)) > 2 {
		c.render(150 * time.Millisecond)
	}
}

// show sets what the chart shows and draws it.
func (c *chart) show(spec barSpec) {
	c.spec = spec
	c.render(0)
}

// render draws the chart in the background after wait, unless a newer
// render starts first.
func (c *chart) render(wait time.Duration) {
	size := c.Size()
	if size.Width < 10 || size.Height < 10 || c.spec.n == 0 {
		return
	}
	c.seq++
	seq, spec, cols := c.seq, c.spec, themeColours(c.u.app)
	scale := float32(1)
	if cv := c.u.win.Canvas(); cv != nil && cv.Scale() > 0 {
		scale = cv.Scale()
	}
	c.u.goBackground(func(ctx context.Context) {
		if wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return
			}
		}
		img, err := drawBars(spec, cols, size, scale)
		fyneDo(func() {
			if seq != c.seq {
				return
			}
			if err != nil {
				fyne.LogError("draw a chart", err)
				return
			}
			c.img.Image = img
			c.drawn = size
			c.img.Refresh()
		})
	})
}

type chartRenderer struct{ c *chart }

func (r *chartRenderer) Layout(s fyne.Size) {
	r.c.img.Resize(s)
	r.c.img.Move(fyne.NewPos(0, 0))
}
func (r *chartRenderer) MinSize() fyne.Size           { return r.c.MinSize() }
func (r *chartRenderer) Refresh()                     { r.c.img.Refresh() }
func (r *chartRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.c.img} }
func (r *chartRenderer) Destroy()                     {}

// drawBars draws a stacked bar chart of size (in Fyne units) at scale
// pixels per unit, on a transparent background.
func drawBars(spec barSpec, cols chartColours, size fyne.Size, scale float32) (image.Image, error) {
	p := plot.New()
	p.BackgroundColor = color.Transparent
	fontSize := vg.Points(float64(theme.TextSize()) * 0.8)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Color = cols.text
		ax.LineStyle.Color = cols.grid
		ax.Tick.LineStyle.Color = cols.grid
		ax.Tick.Label.Color = cols.text
		ax.Tick.Label.Font = font.From(chartFont, fontSize)
		ax.Padding = 0
	}
	p.Y.Min = 0
	p.Y.Tick.Marker = integerTicks{}
	p.X.Tick.Marker = labelTicks{n: spec.n, label: spec.label}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Transparent
	grid.Horizontal.Color = cols.grid
	grid.Horizontal.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(grid)

	// Bars fill about four fifths of their slot.
	plotWidth := float64(size.Width) - 60
	barWidth := vg.Points(math.Max(1, plotWidth/float64(spec.n)*0.8))
	var below *plotter.BarChart
	total := 0.0
	for _, s := range spec.stacks {
		bars, err := plotter.NewBarChart(plotter.Values(s.values), barWidth)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", s.name, err)
		}
		bars.Color = s.colour
		bars.LineStyle.Width = 0
		if below != nil {
			bars.StackOn(below)
		}
		p.Add(bars)
		below = bars
		for _, v := range s.values {
			total += v
		}
	}
	if total == 0 {
		p.Y.Max = 1
	}
	p.X.Min, p.X.Max = -0.6, float64(spec.n)-0.4

	dpi := int(math.Round(72 * float64(scale)))
	c := vgimg.NewWith(vgimg.UseWH(vg.Points(float64(size.Width)), vg.Points(float64(size.Height))), vgimg.UseDPI(dpi),
		vgimg.UseBackgroundColor(color.Transparent))
	p.Draw(draw.New(c))
	return c.Image(), nil
}

// integerTicks puts about five ticks on whole numbers.
type integerTicks struct{}

func (integerTicks) Ticks(min, max float64) []plot.Tick {
	step := math.Max(1, niceStep((max-min)/5))
	var ts []plot.Tick
	for v := math.Ceil(min/step) * step; v <= max+1e-9; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprintf("%.0f", v)})
	}
	return ts
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// labelTicks labels at most seven bar positions, evenly spread, the first
// half a spacing in: a label centred on the first of many narrow bars ran
// past the chart's left edge and was cut (2025-12-08 read "025-12-08").
type labelTicks struct {
	n     int
	label func(i int) string
}

func (t labelTicks) Ticks(min, max float64) []plot.Tick {
	every := max1((t.n + 6) / 7)
	var ts []plot.Tick
	for i := every / 2; i < t.n; i += every {
		ts = append(ts, plot.Tick{Value: float64(i), Label: t.label(i)})
	}
	return ts
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}
