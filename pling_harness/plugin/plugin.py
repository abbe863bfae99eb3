"""pytest plugin `pling`: prove a tutorial's guarantees in a real browser.

Built on pytest-playwright's fixtures (`browser` → `context` → `page`), so its flags work
as usual: --headed, --browser-channel, --slowmo, --tracing, --screenshot, --video,
--output. One browser per worker; the checks that open the tutorial or the testbed share
one warm page per worker, each from a new document on emptied storage (pling_harness/browser/
warm.py; `--pling-fresh-pages`, tracing, video or screenshots: a fresh context per test).

Fixtures (see `pytest --fixtures`): the tutorial (`tutorial_id`, `tutorial`,
`tutorial_root`, `locale`, `words`, `say`), its server (`tutorial_server`,
`start_tutorial_server`, `fake_upstream`, `model`), the pages (`tutorial_page`,
`open_tutorial_page`, `testbed_page`, `testbed`, `dock`) and the record (`timeline`,
`gallery`). A check imports only from `pling_harness` and reads like this::

    from pling_harness import Dock, ModelHandle, Say, Timeline, guarantees

    @pytest.mark.guarantee("denial-respected")
    def test_cancel_denied(tutorial_page: Page, dock: Dock, timeline: Timeline,
                            model: ModelHandle, say: Say, locale: str) -> None:
        dock.ask(say("cancel"))
        before = timeline.mark()
        dock.deny()
        guarantees.denial_respected(timeline, action="cancel_order", since=before,
                                    success_phrases=model.success_phrases(...))

To serve differently (e.g. another model provider), override `tutorial_server` in the
test module with one from `start_tutorial_server(environ=...)`; `model`, `timeline` and
the page fixtures follow it.

Options: --pling-root DIR (what the server serves), --pling-tutorial ID (which tutorial;
default: the checks folder's, see tutorial_choice.py), --pling-locale LOCALE (run one of
its locales), --pling-choices FILE (all of these, the page and the driver as
`pling-tutorial check` resolved them; the report header shows each choice and its source,
see choices.py), --pling-report PATH (JSON: each test's locale, guarantees, outcome, failure),
--pling-html DIR (an HTML report with the guarantee table, each failure's timeline and
trace (a failing check is run again once, traced; one that passes then is flaky, a
failure: `pling_harness/plugin/retry.py`), and a gallery of what the user saw in each locale; see
`pling_harness/plugin/html_report.py`).
The `guarantee(name)` marker names the promise a test proves, for the summary of
`pling-tutorial check` and for the mutation report.
"""

# The plugin by concern; pytest registers each of these modules with this one.
pytest_plugins = [
    "pling_harness.plugin.choices",  # before options, which imports it
    "pling_harness.plugin.options",
    "pling_harness.plugin.driver",  # before configure, which imports it
    "pling_harness.plugin.retry",  # the same
    "pling_harness.plugin.configure",
    "pling_harness.plugin.collection",
    "pling_harness.plugin.guarantee_names",
    "pling_harness.plugin.reporting",
    "pling_harness.plugin.tutorial_fixtures",
    "pling_harness.plugin.server_fixtures",
    "pling_harness.plugin.page_fixtures",
    "pling_harness.plugin.model_port",
    "pling_harness.plugin.declared.collect",
]
