print("alarmd: not yet")
