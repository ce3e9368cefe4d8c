tplan.gpus.load("fifo.csv")
print("loaded")
