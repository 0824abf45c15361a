dump --passes convert-ssa
