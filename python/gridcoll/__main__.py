"""python -m gridcoll validate|sweep|report ... (see each one's --help)."""
import sys


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in ("validate", "sweep"):
        print("usage: python -m gridcoll validate [SPEC] [options] | sweep SPEC --db FILE [options]", file=sys.stderr)
        return 2
    cmd, rest = sys.argv[1], sys.argv[2:]
    if cmd == "validate":
        from .validate import main as run
    else:
        from .cli_sweep import main as run
    return run(rest)


if __name__ == "__main__":
    sys.exit(main())
