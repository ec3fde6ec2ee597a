print("benchmarks: to be written")
