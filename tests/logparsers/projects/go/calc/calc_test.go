package calc

import (
	"fmt"
	"testing"
)

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("1 + 2 should be 3")
	}
}

func TestAddFailsWithMultilineMessage(t *testing.T) {
	t.Log("first log line\nsecond log line")
	t.Errorf("got %d\nwant %d", Add(2, 2), 5)
}

func TestSkipped(t *testing.T) {
	t.Skip("needs a database")
}

func TestTable(t *testing.T) {
	cases := []struct {
		name string
		a, b int
		want int
	}{
		{"small numbers", 1, 1, 2},
		{"negative (and parenthesised)", -1, -1, -2},
		{"wrong on purpose", 2, 2, 5},
		{"a/b path", 0, 0, 0},
	}
	for _, c := range cases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			if got := Add(c.a, c.b); got != c.want {
				t.Errorf("Add(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
			}
		})
	}
}

func TestNested(t *testing.T) {
	t.Run("outer", func(t *testing.T) {
		t.Run("inner passes", func(t *testing.T) {})
		t.Run("inner skipped", func(t *testing.T) { t.Skip("not today") })
	})
}

func TestParallel(t *testing.T) {
	for i := 0; i < 3; i++ {
		i := i
		t.Run(fmt.Sprintf("worker-%d", i), func(t *testing.T) {
			t.Parallel()
			if i == 2 {
				t.Error("worker 2 fails")
			}
		})
	}
}

func TestPanics(t *testing.T) {
	t.Run("recovered", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("expected a panic")
			}
		}()
		Div(1, 0)
	})
}

func TestPrintsStatusLookingLines(t *testing.T) {
	fmt.Println("--- PASS: TestForged (0.00s)")
}
