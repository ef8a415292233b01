"""The diff highlighter and the SVG primitives, on hand-made inputs."""

from __future__ import annotations

import re

from modularrsi.report import svg
from modularrsi.report.highlight import highlight_diff

DIFF = '''--- a/modules/completion/guard.py
+++ b/modules/completion/guard.py
@@ -1,4 +1,6 @@
 """Guard.
-Old text."""
+New <b>text</b>."""
+import re  # regex
 def check(reply, output, ctx):
-    return None
+    return len(output) > 10 and "<script>"
'''


def test_diff_lines_are_classified_and_escaped():
    out = highlight_diff(DIFF)
    assert out.count('class="ln hd"') == 2 and out.count('class="ln hk"') == 1
    assert out.count('class="ln add"') == 3 and out.count('class="ln del"') == 2
    assert "<script>" not in out and "<b>" not in out and "&lt;script&gt;" in out
    assert '<span class="k">import</span>' in out and '<span class="c"># regex</span>' in out
    assert '<span class="f">check</span>' in out and '<span class="b">len</span>' in out
    assert '<span class="n">10</span>' in out


def test_triple_quoted_strings_span_lines_per_side():
    out = highlight_diff(DIFF)
    # the docstring opened in a context line closes on each side's own line; the next line is code again
    assert '<span class="s">New &lt;b&gt;text&lt;/b&gt;.&quot;&quot;&quot;</span>' in out
    assert '<span class="s">Old text.&quot;&quot;&quot;</span>' in out


def test_non_python_files_are_escaped_only():
    out = highlight_diff('--- a/manifest.json\n+++ b/manifest.json\n@@ -1 +1 @@\n-{"id": "a"}\n+{"id": "<b>"}\n')
    assert 'class="k"' not in out and "&lt;b&gt;" in out


def test_figures_have_a_size_and_titles():
    figures = [
        svg.line_chart([svg.Series("a", [(0, 0.5, False), (1, 0.75, True)]), svg.Series("b", [(0, None, False)])],
                       "t", "epoch", "Acc"),
        svg.stacked_bars([("row", {"x": 0.25, "y": 0.75})], [("x", "X"), ("y", "Y")], "t"),
        svg.funnel([("proposed", 3), ("promoted", 0)], "t"),
        svg.heatmap([[1, 0], [0, 2]], ["0/1", "1/1"], ["0/1", "1/1"], "t", "rows", "cols",
                    [["same", "fix"], ["brk", "same"]]),
        svg.bars([("task <x>", 0.5)], "t"),
    ]
    for figure in figures:
        width, height = map(int, re.search(r'width="(\d+)" height="(\d+)"', figure).groups())
        assert width > 0 and height > 0
        assert figure.startswith("<svg") and "<title>t</title>" in figure
    assert "task &lt;x&gt;" in figures[-1]
