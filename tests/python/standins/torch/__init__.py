"""A stand-in for PyTorch: the torch.cuda memory calls the runlog package makes."""
from . import cuda  # noqa: F401
