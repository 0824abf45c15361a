lift --bind n=16
