print("crash child: to be written")
