"""`python -m tfteach.kernel install|uninstall ...` (see tfteach/kernel/__init__.py)."""
import argparse
import sys

from tfteach import kernel


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tfteach.kernel",
                                     description="Install the 'Python 3 (tfteach)' kernel.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("install", "uninstall"):
        p = sub.add_parser(name)
        where = p.add_mutually_exclusive_group()
        where.add_argument("--user", action="store_true", help="the user's Jupyter folder")
        where.add_argument("--sys-prefix", action="store_true",
                           help="this Python environment (sys.prefix)")
        where.add_argument("--prefix", help="another prefix (PREFIX/share/jupyter)")
        if name == "install":
            p.add_argument("--virtual-gpus", type=int, default=1, metavar="N",
                           help="virtual GPUs the kernel gets when there is no real GPU "
                                "(default 1; 0: none)")
            p.add_argument("--keep-malloc-defaults", action="store_true",
                           help="leave glibc's malloc thresholds at their defaults (the "
                                "kernel then hands freed memory back sooner, and runs "
                                "steps that free much memory slower)")
    args = parser.parse_args(argv)
    try:
        return _run(parser, args)
    except ModuleNotFoundError as e:      # install_hints' one line, not a traceback
        print("error: %s" % e, file=sys.stderr)
        return 1


def _run(parser, args):
    if args.command == "install":
        if args.virtual_gpus < 0:
            parser.error("--virtual-gpus must be >= 0")
        path = kernel.install(args.user, args.sys_prefix, args.prefix, args.virtual_gpus,
                              malloc_settings=not args.keep_malloc_defaults)
        print("Installed kernelspec %s (%s) in %s" % (kernel.KERNEL_NAME,
                                                      kernel.DISPLAY_NAME, path))
    else:
        removed = kernel.uninstall(args.user, args.sys_prefix, args.prefix)
        print("Removed %s" % ", ".join(removed) if removed
              else "No %s kernelspec found." % kernel.KERNEL_NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main())
