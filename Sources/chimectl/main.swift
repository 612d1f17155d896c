print("chimectl: not yet wired")
