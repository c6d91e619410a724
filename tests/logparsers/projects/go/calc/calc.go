// Package calc is the code under test of the go test sample.
package calc

// Add returns a + b.
func Add(a, b int) int { return a + b }

// Div returns a / b and panics when b is zero.
func Div(a, b int) int { return a / b }
