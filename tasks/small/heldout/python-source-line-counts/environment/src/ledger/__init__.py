x_0 = 374  # line 1
x_1 = 290  # line 2
x_2 = 895  # line 3
