"""python -m gridcoll validate|sweep ... (see each one's --help)."""
import sys

USAGE = ("usage: python -m gridcoll validate [SPEC] [options] | sweep SPEC --db FILE [options]\n"
         "  validate  a spec's sweep over every backend, then an HTML report (gridcoll validate)\n"
         "  sweep     a spec's points into a results database, resuming; optionally a CSV (no report)\n"
         "each takes --help")


def main() -> int:
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print(USAGE)
        return 0
    if len(sys.argv) < 2 or sys.argv[1] not in ("validate", "sweep"):
        print(USAGE, file=sys.stderr)
        return 2
    cmd, rest = sys.argv[1], sys.argv[2:]
    if cmd == "validate":
        from .validate import main as run
    else:
        from .cli_sweep import main as run
    return run(rest)


if __name__ == "__main__":
    sys.exit(main())
