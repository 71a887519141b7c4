//go:build ignore

// gen_icons draws Ireneo's icons: a white speech bubble holding an eye (the
// memory that sees everything said) on an indigo tile. Run it from the
// repository root with `go run ./assets/gen_icons.go`; it rewrites
// assets/icon.png (256 px, the app icon) and assets/tray.png (64 px).
//
// Shapes are signed distance functions, so every edge is anti-aliased
// analytically and the small tray size stays crisp.
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"
)

func main() {
	dir := "assets"
	if _, err := os.Stat(dir); err != nil {
		dir = "."
	}
	for name, size := range map[string]int{"icon.png": 256, "tray.png": 64} {
		if err := write(filepath.Join(dir, name), draw(size)); err != nil {
			log.Fatal(err)
		}
	}
}

func write(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Colours.
var (
	indigoTop    = rgb(0x63, 0x5b, 0xff)
	indigoBottom = rgb(0x31, 0x2e, 0x81)
	white        = rgb(0xff, 0xff, 0xff)
	iris         = rgb(0x43, 0x38, 0xca)
	pupil        = rgb(0x1e, 0x1b, 0x4b)
)

type fcolor struct{ r, g, b, a float64 }

func rgb(r, g, b uint8) fcolor {
	return fcolor{float64(r) / 255, float64(g) / 255, float64(b) / 255, 1}
}

// over composites c with coverage k over dst (premultiplied maths).
func over(dst fcolor, c fcolor, k float64) fcolor {
	a := c.a * k
	return fcolor{
		c.r*a + dst.r*(1-a),
		c.g*a + dst.g*(1-a),
		c.b*a + dst.b*(1-a),
		a + dst.a*(1-a),
	}
}

// cover turns a signed distance in pixels into pixel coverage.
func cover(d float64) float64 { return math.Max(0, math.Min(1, 0.5-d)) }

func sdRoundRect(x, y, cx, cy, hw, hh, r float64) float64 {
	qx := math.Abs(x-cx) - hw + r
	qy := math.Abs(y-cy) - hh + r
	out := math.Hypot(math.Max(qx, 0), math.Max(qy, 0))
	return out + math.Min(math.Max(qx, qy), 0) - r
}

func sdCircle(x, y, cx, cy, r float64) float64 { return math.Hypot(x-cx, y-cy) - r }

// sdTriangle is the distance to the triangle a-b-c (from Inigo Quilez).
func sdTriangle(px, py float64, a, b, c [2]float64) float64 {
	e0 := [2]float64{b[0] - a[0], b[1] - a[1]}
	e1 := [2]float64{c[0] - b[0], c[1] - b[1]}
	e2 := [2]float64{a[0] - c[0], a[1] - c[1]}
	v0 := [2]float64{px - a[0], py - a[1]}
	v1 := [2]float64{px - b[0], py - b[1]}
	v2 := [2]float64{px - c[0], py - c[1]}
	seg := func(v, e [2]float64) [2]float64 {
		t := math.Max(0, math.Min(1, (v[0]*e[0]+v[1]*e[1])/(e[0]*e[0]+e[1]*e[1])))
		return [2]float64{v[0] - e[0]*t, v[1] - e[1]*t}
	}
	pq0, pq1, pq2 := seg(v0, e0), seg(v1, e1), seg(v2, e2)
	s := math.Copysign(1, e0[0]*e2[1]-e0[1]*e2[0])
	dot := func(p [2]float64) float64 { return p[0]*p[0] + p[1]*p[1] }
	d0 := [2]float64{dot(pq0), s * (v0[0]*e0[1] - v0[1]*e0[0])}
	d1 := [2]float64{dot(pq1), s * (v1[0]*e1[1] - v1[1]*e1[0])}
	d2 := [2]float64{dot(pq2), s * (v2[0]*e2[1] - v2[1]*e2[0])}
	dm := d0
	for _, d := range [][2]float64{d1, d2} {
		dm = [2]float64{math.Min(dm[0], d[0]), math.Min(dm[1], d[1])}
	}
	return -math.Sqrt(dm[0]) * math.Copysign(1, dm[1])
}

// sdEye is the almond of an eye: the intersection of two circles.
func sdEye(x, y, cx, cy, halfW, halfH float64) float64 {
	// Circles through (±halfW, 0) and (0, ±halfH).
	r := (halfW*halfW + halfH*halfH) / (2 * halfH)
	off := r - halfH
	top := sdCircle(x, y, cx, cy+off, r)
	bottom := sdCircle(x, y, cx, cy-off, r)
	return math.Max(top, bottom)
}

func draw(size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	s := float64(size)
	u := s / 256 // design units are for a 256 px canvas
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			x, y := float64(px)+0.5, float64(py)+0.5
			c := fcolor{}
			// The tile, with a vertical gradient.
			t := y / s
			bg := fcolor{
				indigoTop.r*(1-t) + indigoBottom.r*t,
				indigoTop.g*(1-t) + indigoBottom.g*t,
				indigoTop.b*(1-t) + indigoBottom.b*t, 1,
			}
			c = over(c, bg, cover(sdRoundRect(x, y, s/2, s/2, s/2-2*u, s/2-2*u, 56*u)))
			// The speech bubble: a rounded body and a tail at the lower left.
			body := sdRoundRect(x, y, 128*u, 114*u, 92*u, 66*u, 34*u)
			tail := sdTriangle(x, y, [2]float64{64 * u, 150 * u}, [2]float64{112 * u, 170 * u}, [2]float64{54 * u, 214 * u})
			c = over(c, white, cover(math.Min(body, tail)))
			// The eye: an indigo almond, a white ring, the iris and pupil.
			almond := sdEye(x, y, 128*u, 114*u, 64*u, 36*u)
			c = over(c, iris, cover(almond))
			c = over(c, white, cover(sdCircle(x, y, 128*u, 114*u, 27*u)))
			c = over(c, iris, cover(sdCircle(x, y, 128*u, 114*u, 21*u)))
			c = over(c, pupil, cover(sdCircle(x, y, 128*u, 114*u, 11*u)))
			c = over(c, white, cover(sdCircle(x, y, 136*u, 106*u, 5*u)))
			img.SetNRGBA(px, py, toNRGBA(c))
		}
	}
	return img
}

func toNRGBA(c fcolor) color.NRGBA {
	if c.a <= 0 {
		return color.NRGBA{}
	}
	q := func(v float64) uint8 { return uint8(math.Round(math.Max(0, math.Min(1, v)) * 255)) }
	return color.NRGBA{q(c.r / c.a), q(c.g / c.a), q(c.b / c.a), q(c.a)}
}
