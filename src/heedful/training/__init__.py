"""Training a translation model with the paper's recipe (§5), one concept per module:

config        the run's frozen, typed configuration; YAML files and --set overrides
prepare       read, normalise, BPE, encode, filter (heedful.data does the pieces)
batching      token-count batches with length bucketing; the resumable batch stream
loss          label-smoothed cross-entropy
schedule      the learning rate of §5.3
step          one update: accumulation, clipping, bf16 autocast, Adam
evaluation    dev loss, sacreBLEU and chrF
state         the training state beside a model directory (safetensors + JSON)
checkpoints   the last K checkpoints, for averaging
average       checkpoint averaging
distributed   DistributedDataParallel under torchrun
progress      progress bar, JSONL log, curves
trainer       the loop
"""
