"""Browser tests: Playwright driving Debian's chromium against pytest-django's live_server.

Every test under tests/browser is marked `browser`; `make test-browser` runs them
(and installs chromium first if /usr/bin/chromium is missing).
"""

from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from bench.browser import CHROMIUM, CHROMIUM_ARGS
from campaign.models import Campaign
from roster.models import Force
from rules.loader import clear_catalogue_cache

# Accessibility violations at these axe impact levels fail a test.
FAILING_IMPACTS = frozenset({"serious", "critical"})
AXE = Axe()

_HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    # tryfirst: the mark is in place before `-m browser` / `-m "not browser"` selects.
    for item in items:
        if _HERE in item.path.parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test-browser` installs Debian's chromium.")
    # Playwright's sync API keeps an event loop running in this thread, and Django then
    # refuses ORM calls here (SynchronousOnlyOperation), the test database's own set-up
    # and flushes included. Allowed only while the browser is up.
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            yield browser
            browser.close()


@pytest.fixture
def page(browser: Browser, live_server) -> Iterator[Page]:
    """A fresh page in a new browser context (own cookies and storage) for each test."""
    context = browser.new_context()
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture(autouse=True)
def _rules_loaded(transactional_db):
    """Reload the rules catalogue: live_server's transactional tests flush the database
    after each test, the rules that tests/conftest.py loaded once included."""
    call_command("loaddata", "rules", verbosity=0)
    clear_catalogue_cache()


def assert_accessible(page: Page) -> None:
    """Fail on axe-core violations of serious or critical impact on the current page.

    axe-core itself ships inside axe-playwright-python (axe.min.js); nothing is downloaded.
    """
    violations = [
        v for v in AXE.run(page).response["violations"] if v["impact"] in FAILING_IMPACTS
    ]
    if violations:
        lines = [f"{len(violations)} accessibility violation(s) on {page.url}:"]
        for v in violations:
            lines.append(f"- {v['id']} ({v['impact']}): {v['help']} <{v['helpUrl']}>")
            lines.extend(f"    {node['target']}: {node['html'][:200]}" for node in v["nodes"])
        pytest.fail("\n".join(lines))


# Desktop and phone, light and dark: the views every page is tried in (issue #11).
VIEWS = {
    "desktop-light": {"viewport": {"width": 1280, "height": 800}, "color_scheme": "light"},
    "desktop-dark": {"viewport": {"width": 1280, "height": 800}, "color_scheme": "dark"},
    "phone-light": {
        "viewport": {"width": 390, "height": 844},
        "color_scheme": "light",
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 3,
    },
    "phone-dark": {
        "viewport": {"width": 390, "height": 844},
        "color_scheme": "dark",
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 3,
    },
}


def signed_in_page(browser: Browser, live_server, user, view: str = "desktop-light") -> Page:
    """A page in a new context of `view` (viewport, colour scheme) with `user` signed in
    through a session cookie (the log-in form has its own tests). Close its context."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    context = browser.new_context(**VIEWS[view])
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    return page


def horizontal_overflow(page: Page) -> dict[str, int]:
    """What scrolls sideways on the page, the page itself or any box in it (a table in
    its scrolling wrapper), and by how many CSS pixels: {} when nothing does."""
    return page.evaluate(
        """() => {
          const wide = {};
          const root = document.documentElement;
          if (root.scrollWidth > root.clientWidth) wide.page = root.scrollWidth - root.clientWidth;
          for (const el of document.querySelectorAll("main *")) {
            const style = getComputedStyle(el);
            if (!["auto", "scroll"].includes(style.overflowX)) continue;
            if (el.scrollWidth > el.clientWidth + 1) {
              const table = el.querySelector("caption, h2, h3");
              const name = (table ? table.textContent : el.className).trim().slice(0, 40);
              wide[name] = el.scrollWidth - el.clientWidth;
            }
          }
          return wide;
        }"""
    )


# In the page, from the click (capturing, before htmx sees it) to htmx:afterSwap, the
# moment the answer is in the DOM: what the player waits for. And from the click to the
# next frame after it (an animation frame, then a task: the frame's style, layout and
# paint are done by then): work the browser leaves until after afterSwap (restyling what
# was swapped in) counts there, so moving it past afterSwap gains nothing in this figure.
# Measured, not asserted.
CLICK_TO_DOM = """() => {
  window.__latencies = [];
  window.__frames = [];
  document.addEventListener("click", () => { window.__clicked = performance.now(); }, true);
  document.addEventListener("htmx:afterSwap", () => {
    if (window.__clicked === undefined) return;
    const clicked = window.__clicked;
    window.__latencies.push(performance.now() - clicked);
    window.__clicked = undefined;
    requestAnimationFrame(() => setTimeout(() => {
      window.__frames.push(performance.now() - clicked);
    }, 0));
  });
}"""
MEASURED = "n => window.__latencies.length >= n && window.__frames.length >= n"


def htmx_settled(page: Page) -> None:
    """htmx has finished every request, swap and settle on the page, so what site.js does
    on `htmx:afterSettle` (the player's place and focus kept) is done. An answer's text
    shows at the swap, a settle delay earlier."""
    busy = ".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added"
    expect(page.locator(busy)).to_have_count(0)


def click_figures(page: Page, clicks: int) -> str:
    """The measured clicks' medians and 90th percentiles, as `bench.browser` reads them."""
    swapped = sorted(page.evaluate("() => window.__latencies"))
    framed = sorted(page.evaluate("() => window.__frames"))
    assert len(swapped) == len(framed) == clicks

    def figures(times: list[float]) -> str:
        middle = clicks // 2
        median = (times[middle - 1] + times[middle]) / 2 if clicks % 2 == 0 else times[middle]
        return f"median {median:.0f} ms, p90 {times[int(clicks * 0.9) - 1]:.0f} ms"

    return f"click-to-DOM {figures(swapped)}; to the next frame {figures(framed)}"


# --- two players on phones (play mode) ----------------------------------------------------

PASSWORD = "a-long-and-silly-passphrase-12"
PHONE = {"width": 390, "height": 844}


def phone(browser: Browser) -> BrowserContext:
    return browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)


def log_in(context: BrowserContext, url: str, username: str) -> Page:
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("dialog", lambda dialog: dialog.accept())  # "Undo the last action?" and the like
    page.goto(url + reverse("accounts:login"))
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    # On a phone the navigation, "Log out" included, is folded into its menu.
    expect(page.get_by_role("button", name="Log out", include_hidden=True)).to_be_attached()
    return page


def hp(page: Page, figure_id: int):
    return page.get_by_test_id(f"hp-{figure_id}")


def done(page: Page, do) -> None:
    """Do something that changes the battle, and wait until this page shows its answer
    (every action moves the battle's version on by one)."""
    version = int(page.locator("#battle-state").get_attribute("data-version"))
    do()
    expect(page.locator(f'#battle-state[data-version="{version + 1}"]')).to_be_attached()


def act_panel(page: Page, summary: str):
    details = page.locator("details", has=page.locator("summary", has_text=summary))
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    return details


def open_sheet(page: Page, figure_id: int, do: str = ""):
    """Tap one's own figure's card (and an action's tab): its sheet opens in the dock."""
    page.locator(f"#figure-{figure_id} .play-figure__open").click()
    sheet = page.locator("#sheet")
    expect(sheet.locator(f'input[name="figure"][value="{figure_id}"]').first).to_be_attached()
    if do:
        sheet.locator(".play-tabs").get_by_role("link", name=do, exact=True).click()
        expect(sheet.locator(".play-tab[aria-current]")).to_have_text(do)
    htmx_settled(page)
    return sheet


def roll_initiative(page: Page, *rounds: tuple[int, int]) -> None:
    """Initiative from the turn's small boxes: each side's die, then a tie's re-rolls."""
    form = page.locator("#initiative")
    for i, (first, second) in enumerate(rounds):
        if i == 1:
            form.locator("summary").click()
        form.locator(f'input[name="initiative_{i}_0"]').fill(str(first))
        form.locator(f'input[name="initiative_{i}_1"]').fill(str(second))
    done(page, lambda: form.get_by_role("button", name="Roll initiative").click())


# --- the demo player's world (`manage.py seed_demo`) ---------------------------------------


@pytest.fixture
def demo(live_server):
    """The demo player's world (`manage.py seed_demo`): a legal force and a campaign with
    three confirmed battles against `rival`."""
    with override_settings(DEBUG=True):
        call_command("seed_demo", verbosity=0)
    user = get_user_model().objects.get(username="demo")
    force = Force.objects.filter(owner=user, campaign_entry__isnull=True).get()
    return user, force, Campaign.objects.get(name="Spring Term League")


@pytest.fixture
def pages(browser, live_server):
    """`pages(user, view)`: a page of `view` with `user` signed in; closed after the test."""
    opened: list[Page] = []

    def open_as(user, view: str) -> Page:
        page = signed_in_page(browser, live_server, user, view)
        opened.append(page)
        return page

    yield open_as
    for page in opened:
        page.context.close()


def member_url(live_server, force: Force, name: str, step: str) -> str:
    """The builder's page for `force`'s member `name`, with `step` open."""
    member = force.members.get(name=name)
    return live_server.url + reverse("roster:member", args=[force.pk, member.pk]) + f"?step={step}"
