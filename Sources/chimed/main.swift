print("chimed: not yet wired")
