module example.com/logparsers

go 1.19
