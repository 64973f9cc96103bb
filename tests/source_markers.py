"""Where a test's DSL errors must point: lines of the test file marked `# @name`, and the check
that an error names that file, line and column and shows the line with a caret under it."""
from pathlib import Path


class MarkedSource:
    """A test file's own source, read once, with its `# @name` markers."""

    def __init__(self, path: str):
        self.path = str(path)
        self.lines = Path(path).read_text().splitlines()

    def line(self, marker: str) -> int:
        """The 1-based line that ends with `# @marker`."""
        hits = [i + 1 for i, text in enumerate(self.lines) if text.rstrip().endswith(f"# @{marker}")]
        assert len(hits) == 1, f"marker @{marker} found on lines {hits}"
        return hits[0]

    def assert_points_at(self, exc: BaseException, marker: str, snippet: str):
        """`exc` names this file, the marked line and the column where `snippet` starts on it,
        shows the line with a caret under that column, and hides the compiler (its frames and
        the internal exceptions that led to it)."""
        line = self.line(marker)
        text = self.lines[line - 1]
        assert snippet in text, f"{snippet!r} not on line {line}"
        col = text.index(snippet) + 1
        message = str(exc)
        assert f"{self.path}:{line}:{col}" in message, message
        shown = message.splitlines()
        at = [i for i, row in enumerate(shown) if row.rstrip().endswith(text.strip())]
        assert at, f"the source line is not shown:\n{message}"
        i = at[0]
        prefix = len(shown[i].rstrip()) - len(text.rstrip())
        assert i + 1 < len(shown), f"no caret line:\n{message}"
        caret = shown[i + 1]
        assert caret.strip() and set(caret.strip()) <= {"^", "~"}, f"no caret line:\n{message}"
        assert caret.index("^") - prefix == col - 1, f"the caret is not under column {col}:\n{message}"
        assert "passes/" not in message and "site-packages" not in message, message
        assert exc.__cause__ is None and (exc.__context__ is None or exc.__suppress_context__), \
            "internal exceptions leak into the traceback"
