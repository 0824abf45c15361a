lift --shared
