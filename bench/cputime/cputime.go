// Package cputime reads the CPU time this process has used, user plus
// system. Benchmarks and the tests that bound work quote it beside wall
// time: on a busy shared machine it measures the work, where wall time
// also measures the neighbours (it includes the collector's work, which a
// call's garbage causes). A leaf.
package cputime

// Seconds is Self in seconds.
func Seconds() float64 { return Self().Seconds() }
