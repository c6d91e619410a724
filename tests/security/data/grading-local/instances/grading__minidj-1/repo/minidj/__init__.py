VERSION = (4, 2, 0)
