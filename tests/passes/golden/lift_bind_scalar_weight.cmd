lift --bind scale=2.0
