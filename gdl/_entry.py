"""The `gdl` command's entry point.  It imports nothing itself, so that a Ctrl-C while
Python loads the rest of gdl (a tenth of a second, longer on a busy machine) ends the
command quietly with status 130, as one at any later moment does, not with the import's
traceback."""
import sys


def main() -> int:
    try:
        from gdl.cli import main as run
    except KeyboardInterrupt:
        return 130
    return run()


if __name__ == "__main__":
    sys.exit(main())
