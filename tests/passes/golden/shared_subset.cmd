lift --shared=func1,func2
