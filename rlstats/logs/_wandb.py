def read_wandb(*args, **kwargs):
    raise NotImplementedError
