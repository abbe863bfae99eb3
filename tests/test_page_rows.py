"""The pages table (pling_harness/project/page_rows.py, pages_table.py) and the launcher
(pling_harness/server/page_process.py): a row is data, validated; its command starts in a
process group of its own, is ready once its URL answers, and leaves no process when stopped;
a page that does not start is one line naming its command, how it ended and its last lines."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest
from pydantic import ValidationError

from pling_harness.project.page_rows import PageRow, placeholder_values
from pling_harness.project.pages_table import OURS, page_row, pages_table
from pling_harness.project.root import RootError, read_settings
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.page_process import PageProcess, PageStartError, answers, free_port

PROJECT_ROOT = Path(__file__).resolve().parents[1]
# A server for the launcher's tests: Python's own, in the row's folder, plus a child of it
# in the same group (the launcher must stop both).
SERVER = textwrap.dedent("""\
    import http.server, os, subprocess, sys
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    open("child.pid", "w").write(str(child.pid))
    print("serving", os.environ["GREETING"], flush=True)
    http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])),
                                    http.server.SimpleHTTPRequestHandler).serve_forever()
""")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has exited; only its parent has not read its status yet.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(") ", 1)[1][0] not in "ZX"
    except FileNotFoundError:  # reaped between the two looks
        return False


def server_row(**fields: object) -> PageRow:
    return PageRow.model_validate({
        "name": "py-page", "cwd": "page",
        "command": [sys.executable, "server.py", "{port}"],
        "url": "http://127.0.0.1:{port}/", "ready_timeout_s": 30,
        "env": {"GREETING": "hello from {api_origin}"}, **fields})


@pytest.fixture
def page_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "page"
    folder.mkdir()
    (folder / "server.py").write_text(SERVER, encoding="utf-8")
    return tmp_path


def values() -> dict[str, str]:
    return placeholder_values(port=free_port(), api_origin="http://127.0.0.1:9")


def test_r15_lists_its_eight_pages_as_rows() -> None:
    tutorial = load_tutorial("r-15", PROJECT_ROOT)
    table = pages_table(tutorial, PROJECT_ROOT)
    assert list(table) == [OURS, "react", "react-build", "ai-sdk", "copilotkit",
                           "copilotkit-build", "assistant-ui", "assistant-ui-v6"]
    assert table[OURS].served_by_fixture_server
    assert table["ai-sdk"].driver == "drivers/ai-sdk.json"
    assert table["react-build"].build_command is not None
    filled = table["ai-sdk"].filled_env(placeholder_values(port=5, api_origin="http://a:1"))
    assert filled["PLING_OPENAI_BASE_URL"] == "http://a:1/v1"
    assert filled["PLING_API_ORIGIN"] == "http://a:1"


@pytest.mark.parametrize(("fields", "complaint"), [
    ({"name": "Bad_Name"}, "name"),
    ({"command": ["vite", "--port", "{prot}"]}, "{prot}"),
    ({"url": "ftp://x/"}, "http"),
    ({"cwd": "../elsewhere"}, "relative"),
    ({"driver": "/etc/driver.json"}, "relative"),
    ({"colour": "blue"}, "colour"),
    ({"command": None, "build_command": ["make"]}, "build_command"),
])
def test_a_bad_row_is_refused_naming_the_field(fields: dict[str, object],
                                               complaint: str) -> None:
    with pytest.raises(ValidationError, match=complaint.replace("{", r"\{")):
        server_row(**fields)


def test_a_projects_rows_join_the_tutorials_and_a_name_twice_is_refused(
        tmp_path: Path) -> None:
    tutorial = load_tutorial("r-15", PROJECT_ROOT)
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""\
        [[tool.pling.pages]]
        name = "mine"
        command = ["npm", "run", "dev", "--", "--port", "{port}"]
        cwd = "web"
        env = { API = "{api_origin}" }
        """), encoding="utf-8")
    row = page_row(tutorial, tmp_path, "mine")
    assert row.command == ("npm", "run", "dev", "--", "--port", "{port}")
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.pling.pages]]\nname = "react"\ncommand = ["x"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"page 'react' is in .*tutorial.json and in"):
        pages_table(tutorial, tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.pling.pages]]\nname = "x"\ncommand = ["x"]\nport = 3\n', encoding="utf-8")
    with pytest.raises(RootError, match=r"pages\.0\.port"):
        read_settings(tmp_path)


def test_an_unknown_page_names_the_ones_there_are() -> None:
    tutorial = load_tutorial("r-15", PROJECT_ROOT)
    with pytest.raises(ValueError, match="no page 'vue'; its pages: ours, react, "):
        page_row(tutorial, PROJECT_ROOT, "vue")


def test_a_row_starts_once_its_url_answers_and_stops_its_whole_group(
        page_folder: Path) -> None:
    page = PageProcess(server_row(), root=page_folder, values=values())
    with page:
        assert answers(page.url)
        assert page.pid is not None
        leader = page.pid
        child = int((page_folder / "page" / "child.pid").read_text())
        assert alive(leader) and alive(child)
        assert any("serving hello from http://127.0.0.1:9" in line for line in page.output)
    assert not alive(leader) and not alive(child)
    assert not answers(page.url)


def test_a_server_already_answering_is_reused_only_when_the_row_says_so(
        page_folder: Path) -> None:
    fixed = values()
    with PageProcess(server_row(), root=page_folder, values=fixed) as first:
        reused = PageProcess(server_row(reuse_existing_server=True), root=page_folder,
                             values=fixed)
        with reused:
            assert reused.reused and reused.pid is None
        assert answers(first.url)  # stopping the reuser stopped nothing
        again = PageProcess(server_row(ready_timeout_s=5), root=page_folder, values=fixed)
        with pytest.raises(PageStartError, match="already answers before its command ran; "
                                                 "stop what serves it, or set reuse_"):
            again.start()
        assert again.pid is None


def test_a_command_that_exits_is_one_line_with_its_code_and_last_lines(
        page_folder: Path) -> None:
    row = server_row(command=[sys.executable, "-c",
                              "print('step one'); print('no such module: vite'); exit(3)"])
    with pytest.raises(PageStartError) as failure:
        PageProcess(row, root=page_folder, values=values()).start()
    line = str(failure.value)
    assert "\n" not in line
    assert line.startswith("page py-page did not start: `")
    assert "exited with code 3" in line
    assert line.endswith("its last lines: step one | no such module: vite")


def test_a_command_that_never_answers_is_stopped_after_its_timeout(
        page_folder: Path) -> None:
    row = server_row(command=[sys.executable, "-c",
                              "import time; print('listening soon', flush=True); "
                              "time.sleep(600)"], ready_timeout_s=1)
    page = PageProcess(row, root=page_folder, values=values())
    with pytest.raises(PageStartError, match=r"still running after 1 s, http://127\.0\.0\.1:"
                                             r"\d+/ not answering; its last lines: "
                                             "listening soon"):
        page.start()
    assert not page.running


def test_a_failed_build_is_the_page_not_starting(page_folder: Path) -> None:
    row = server_row(build_command=[sys.executable, "-c", "import sys; "
                                    "sys.exit('build error: src/main.tsx')"])
    with pytest.raises(PageStartError, match=r"`.* -c .*` in page exited with code 1; its "
                                             "last lines: build error: src/main.tsx"):
        PageProcess(row, root=page_folder, values=values()).start()


def test_a_missing_program_is_one_line(page_folder: Path) -> None:
    row = server_row(command=["node_modules/.bin/no-such-server", "--port", "{port}"])
    with pytest.raises(PageStartError, match="could not run: No such file"):
        PageProcess(row, root=page_folder, values=values()).start()
