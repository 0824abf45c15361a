dump --passes canonicalize-bindings
