x_0 = 654  # line 1
