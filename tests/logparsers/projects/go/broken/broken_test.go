package broken

import "testing"

// Does not compile: the package's tests report a build failure instead of results.
func TestBroken(t *testing.T) {
	var unused int
}
