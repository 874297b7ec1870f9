"""safetensors for the parity scripts, through Hugging Face's `safetensors` package (the PyPI
one in the project venv): what Lathe writes must load in the library everyone else uses, and
what that library writes must load in Lathe."""
from safetensors.torch import load_file, save_file


def save(path, tensors, metadata=None):
    save_file({k: v.detach().contiguous().cpu() for k, v in tensors.items()}, path, metadata=metadata)


def load(path):
    return load_file(path)
