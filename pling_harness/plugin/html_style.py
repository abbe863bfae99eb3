"""The HTML report's style sheet (pling_harness/plugin/html_report.py), inline in its page: the
report loads nothing from anywhere."""

STYLE = """
body { font: 14px/1.45 system-ui, "Noto Sans CJK SC", sans-serif; margin: 0 auto;
       max-width: 1400px; padding: 0 24px 48px; color: #1f2328; }
h1 { margin: 24px 0 4px; } h2 { margin-top: 40px; border-bottom: 1px solid #d0d7de; }
nav a { margin-right: 16px; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d0d7de; padding: 4px 10px; text-align: left; vertical-align: top; }
.outcome-passed { background: #dafbe1; } .outcome-failed, .outcome-error { background: #ffebe9; }
.outcome-skipped, .outcome-na { background: #f6f8fa; color: #57606a; }
.outcome-not-run { background: #fff8c5; color: #57606a; }
.outcome-flaky { background: #fff1e5; }
.interrupted { background: #fff8c5; border: 1px solid #d4a72c; padding: 8px 12px;
       font-weight: 600; }
td.outcome-failed a, td.outcome-error a, td.outcome-flaky a, .badge-failed, .badge-error,
.badge-flaky { color: #cf222e;
       font-weight: 600; }
.gallery { width: 100%; table-layout: fixed; } .gallery th:first-child { width: 200px; }
.gallery img { width: 100%; border: 1px solid #d0d7de; display: block; }
figure { margin: 0; } figcaption { color: #57606a; font-size: 12px; margin-top: 4px;
       overflow-wrap: anywhere; }
.check { padding: 2px 8px; }
.missing { color: #9a6700; background: #fff8c5; }
.check { margin: 4px 0; } .check summary { cursor: pointer; overflow-wrap: anywhere; }
.badge { display: inline-block; min-width: 64px; font-weight: 600; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; padding: 8px; overflow-x: auto;
      font-size: 12px; }
.duration, .nodeid { color: #57606a; }
.choices { margin: 8px 0; } .choices caption { text-align: left; font-weight: 600; }
.choices td { overflow-wrap: anywhere; } .choices .source { color: #57606a; }
"""
