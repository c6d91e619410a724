package calc

import "fmt"

func ExampleAdd() {
	fmt.Println(Add(2, 3))
	// Output: 5
}

func ExampleDiv() {
	fmt.Println(Div(6, 3))
	// Output: 3
}
