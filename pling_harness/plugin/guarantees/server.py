"""The server is no way around the card: foreign requests refused, the dev server closed to
other sites, the provider's key kept on the server."""

from __future__ import annotations

from pling_harness.plugin.declared import dev_server_checks, foreign_checks
from pling_harness.plugin.declared.rows import changes_state
from pling_harness.plugin.guarantee_registry import LAST, Generates, Guarantee, declare

declare(
    Guarantee(
        name="server-refuses-foreign-requests",
        means="every API route refuses a foreign `Host` (whatever `X-Forwarded-Host` or "
              "`Forwarded` say), and every state change a foreign `Origin` (`null` too), a "
              "`Sec-Fetch-Site` of another site, or a body that is not `application/json`; the "
              "refusals are checked against the server under check, yours too with "
              "`--base-url` (proven by sending foreign requests to the target's declared "
              "business API over HTTP and reading its state back)",
        breaks="another site the user visits changes their data without any card",
        checks=(
            Generates("refuses-foreign-requests", foreign_checks.action_refuses_foreign_requests,
                      order=260, when=changes_state,
                      rows="`calls` with a method other than GET, or a handoff's "
                           "`done.request` (its body: the tutorial's preset for that request, "
                           "e.g. the code the human types): from the row's `starts_from` (a "
                           "state the request changes; a row whose request would change "
                           "nothing fails naming it), each foreign way (6 `Origin`s, 3 "
                           "`Sec-Fetch-Site`s, 6 content types, 4 `Host`s and 3 with "
                           "forwarding headers naming the page's own address) is refused with "
                           "its status (403, 415, 403) and no `Access-Control-Allow-Origin`, "
                           "and the state, read back and on the reloaded page, is unchanged; "
                           "one page, the ways over HTTP"),
            Generates("endpoints-refuse-foreign-requests",
                      foreign_checks.table_refuses_foreign_requests, per="table",
                      order=LAST + 150,
                      rows="the tutorial's `api.model` (or the dock driver's "
                           "`assistant_endpoints`): every foreign way refused (it asks no "
                           "model); `api.state`: every foreign `Host` refused, a read too"),
        ),
    ),
    Guarantee(
        name="dev-server-refuses-other-sites",
        means="the server under check, a bundler's dev server too, answers its dev endpoints "
              "(Vite's `/__open-in-editor`, `/@fs/`, `/@id/`, `/@vite/`) to no request "
              "another site's page sent, no foreign `Host` and no local program, and serves "
              "the tutorial's `backend.py` to nobody, the page included (proven over HTTP "
              "against the server under check, a page's dev server included)",
        breaks="a site the developer visits reads their files or opens their editor",
        checks=(Generates("dev-server-refuses-other-sites",
                          dev_server_checks.dev_server_refuses_other_sites, per="table",
                          order=LAST + 160,
                          rows="the tutorial's existence: the dev endpoints "
                               "(`/__open-in-editor`, `/@fs/`, `/@id/`, `/@vite/client`) "
                               "refused (4xx) to 6 senders, the page's own excepted, and "
                               "`backend.py` served to nobody at `/@fs/` (as is, `?raw`, "
                               "`?import`; recognised by the secrets the table takes from it "
                               "and its longest line)"),),
    ),
    Guarantee(
        name="secrets-stay-on-server",
        means="the provider key never reaches the browser: it reaches the upstream as "
              "`Authorization: Bearer …` and appears nowhere in what the browser received, "
              "sent, shows or stores",
        breaks="anyone with the page open can read the provider's key",
        evidence=frozenset({"page", "network", "provider", "server"}),
    ),
)
