"""LiteRT (ai_edge_litert) runs .tflite files that Lathe wrote: test_engine_tflite's peer.

Usage: litert_check.py [--without-delegates] MODEL INPUT OUTPUT [MODEL INPUT OUTPUT ...]

For each triple: loads MODEL with LiteRT's interpreter (its default op resolver, as users run
it, which hands what it can to the XNNPACK delegate; --without-delegates: TFLite's own builtin
kernels only, which refuse some things XNNPACK lets pass), feeds INPUT (raw little-endian values of the model's input type, in its shape) through the
"serving_default" signature, and writes the first output raw to OUTPUT. Several triples share
one process. Exits non-zero when LiteRT refuses one, naming each model it refused.
"""
import sys

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType


def run(resolver, model_path, input_path, output_path):
    interpreter = Interpreter(model_path=model_path, experimental_op_resolver_type=resolver)
    signatures = interpreter.get_signature_list()
    if "serving_default" not in signatures:
        raise RuntimeError(f"no serving_default signature (signatures: {sorted(signatures)})")
    runner = interpreter.get_signature_runner("serving_default")
    inputs = runner.get_input_details()
    if len(inputs) != 1:
        raise RuntimeError(f"{len(inputs)} signature inputs, expected one")
    (name, details), = inputs.items()
    values = np.fromfile(input_path, dtype=details["dtype"])
    values = values.reshape(details["shape"])
    outputs = runner(**{name: values})
    first = runner.get_output_details()
    key = next(iter(first)) if first else next(iter(outputs))
    np.ascontiguousarray(outputs[key]).tofile(output_path)


def main(args):
    resolver = OpResolverType.AUTO
    if args and args[0] == "--without-delegates":
        resolver = OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
        args = args[1:]
    if not args or len(args) % 3:
        print(__doc__, file=sys.stderr)
        return 2
    failed = 0
    for i in range(0, len(args), 3):
        try:
            run(resolver, *args[i:i + 3])
        except Exception as e:  # LiteRT's refusals are RuntimeError/ValueError: name the model
            print(f"{args[i]}: {type(e).__name__}: {e}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
