"""`python -m tritonize` (and the `tritonize` script): the command line."""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="tritonize", description="Element-wise Triton kernels from scalar Python.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="define @pointwise functions, run them, check them against torch, "
                                     "and show the generated code")
    commands.add_parser("cache-path", help="print the directory of generated modules")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from tritonize.demo import main as demo

        return demo()
    from tritonize.cache import cache_dir

    print(cache_dir())
    return 0


if __name__ == "__main__":
    sys.exit(main())
