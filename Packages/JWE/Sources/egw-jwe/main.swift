print("egw-jwe: not yet")
