#!/bin/sh
echo "expected 3, got 2"
echo "second line of the failure"
exit 1
