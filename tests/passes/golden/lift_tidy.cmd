lift --tidy
