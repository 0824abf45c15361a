dump --passes dead-code-elimination
