"""``python -m sdk.lint PATH...``: the same command as ``plugsim lint``."""

from sdk.lint.cli import lint

if __name__ == "__main__":
    lint(prog_name="python -m sdk.lint")
