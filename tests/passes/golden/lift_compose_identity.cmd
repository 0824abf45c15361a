lift
