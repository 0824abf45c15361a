#!/usr/bin/python3
print("1..0")
