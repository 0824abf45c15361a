# expect: 1:1
