#!/usr/bin/env python3
"""Renders every page of a built DocC site in headless Chromium and checks it.

Usage: scripts/check-docs-render.py SITE_DIR   (run through scripts/check-docs-render.sh)

The site is served on loopback by a static file server in this process. One headless
Chromium (Debian's `chromium`) is driven over the DevTools protocol on a pipe
(`--remote-debugging-pipe`), so the browser starts once rather than once per page. For each
page listed by the site's data/documentation/**/*.json files it navigates to the page's URL,
waits until DocC's app has rendered it, and fails unless:
  - the page has its static HTML file and renders a heading equal to its title (the site's
    root: the landing page's, once it has redirected there),
  - no error view ("page not found", "an unknown error occurred") is shown,
  - no request the page made failed (4xx/5xx, or a load error) and no script threw,
  - every link to /documentation/... in the rendered page reaches a page of the site.
Prints one line per page and a summary; exits 1 on any failure.
"""

import fcntl
import functools
import http.server
import json
import os
import pathlib
import posixpath
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

PAGE_TIMEOUT = 20.0  # seconds for one page to render
TOTAL_TIMEOUT = 300.0  # seconds for the whole site
TABS = 4  # pages rendered at once
# Files DocC's app asks for that a site need not have.
OPTIONAL_FILES = {"/theme-settings.json"}

# What the rendered page looks like, read in the page after each navigation.
PROBE = r"""
(() => {
  const error = document.querySelector('.generic-error, .not-found, [class*="error-content"]');
  const heading = document.querySelector('main h1, #app h1');
  const text = (node) => node ? node.textContent.replace(/\s+/g, ' ').trim() : null;
  const links = Array.from(document.querySelectorAll('a[href]'), (a) => a.href);
  return {
    error: error ? (text(error) || 'an error view') : null,
    heading: text(heading),
    links: links,
    location: location.href,
    title: document.title,
  };
})()
"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Browser:
    """Headless Chromium on a DevTools pipe: JSON messages ended by NUL, on fds 3 and 4.

    A reader thread hands each reply to the thread that sent the command, and keeps each
    tab's events for its worker, so several tabs render at once.
    """

    def __init__(self, profile):
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def give_fds():
            # Chromium reads commands on fd 3 and writes replies on fd 4. Moved up first, so
            # that neither dup2 overwrites the other pipe's end.
            read_end = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 10)
            write_end = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 10)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self._log = open(os.path.join(profile, "chromium.log"), "wb")
        self.process = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-background-networking", "--disable-component-update", "--mute-audio",
             "--user-data-dir=" + profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            # Not close_fds: it would close fds 3 and 4 after give_fds. Python's own
            # descriptors are not inheritable, so nothing else leaks into the browser.
            preexec_fn=give_fds, close_fds=False,
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._lock = threading.Lock()
        self._next_id = 0
        self._waiting = {}  # id -> [Event, reply]
        self._events = {}  # session -> [event]
        self._closed = None
        threading.Thread(target=self._read_loop, daemon=True).start()

    def _read_loop(self):
        buffer = b""
        try:
            while True:
                chunk = os.read(self._from_browser, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed its DevTools pipe (its log: chromium.log)")
                buffer += chunk
                while b"\0" in buffer:
                    raw, buffer = buffer.split(b"\0", 1)
                    message = json.loads(raw)
                    with self._lock:
                        if "id" in message and message["id"] in self._waiting:
                            slot = self._waiting.pop(message["id"])
                            slot[1] = message
                            slot[0].set()
                        elif "method" in message and message.get("sessionId") in self._events:
                            self._events[message["sessionId"]].append(message)
        except Exception as error:  # the browser went away: fail every waiting command
            with self._lock:
                self._closed = error
                for slot in self._waiting.values():
                    slot[0].set()
                self._waiting.clear()

    def send(self, method, params=None, session=None, timeout=30.0):
        with self._lock:
            if self._closed:
                raise RuntimeError(str(self._closed))
            self._next_id += 1
            ident = self._next_id
            slot = [threading.Event(), None]
            self._waiting[ident] = slot
            message = {"id": ident, "method": method, "params": params or {}}
            if session:
                message["sessionId"] = session
            os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        if not slot[0].wait(timeout):
            raise TimeoutError(f"Chromium did not answer {method} within {timeout:.0f} s")
        reply = slot[1]
        if reply is None:
            raise RuntimeError(f"{method}: {self._closed}")
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def open_tab(self):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        with self._lock:
            self._events[session] = []
        for domain in ("Page", "Runtime", "Network"):
            self.send(f"{domain}.enable", session=session)
        return session

    def take_events(self, session):
        with self._lock:
            events, self._events[session] = self._events[session], []
        return events

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        self._log.close()


def normalize(text):
    return "".join((text or "").split()).replace("\u200b", "")


def page_path(url):
    """The site path of a documentation URL, without fragment, query or trailing slash."""
    path = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    path = posixpath.normpath(path) if path else "/"
    return path.rstrip("/").lower() or "/"


def list_pages(site):
    data = site / "data"
    pages = {}
    for file in sorted(data.glob("documentation/**/*.json")) + sorted(data.glob("documentation.json")):
        path = "/" + file.relative_to(data).with_suffix("").as_posix()
        try:
            title = json.loads(file.read_text())["metadata"]["title"]
        except (KeyError, ValueError) as error:
            title = None
            print(f"warning: {file}: no metadata.title ({error})", file=sys.stderr)
        pages[path.lower()] = (path, title)
    # The site's root redirects to the landing page (scripts/build-docs.sh).
    if "/documentation" in pages:
        pages["/"] = ("/", pages["/documentation"][1])
    return pages


def main():
    if len(sys.argv) != 2:
        print("usage: check-docs-render.py SITE_DIR", file=sys.stderr)
        return 2
    site = pathlib.Path(sys.argv[1]).resolve()
    if not (site / "data" / "documentation").is_dir():
        print(f"check-docs-render: {site} has no data/documentation (build it with scripts/build-docs.sh)",
              file=sys.stderr)
        return 2
    pages = list_pages(site)
    if not pages:
        print(f"check-docs-render: no pages in {site}", file=sys.stderr)
        return 1

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    print(f"== {len(pages)} pages of {site}, served at {origin}")

    started = time.monotonic()
    queue = list(pages.items())
    queue_lock = threading.Lock()
    results = {}  # path -> (problems, the documentation paths it links to)

    def check(browser, session, path, title):
        problems = []
        shell = site / path.lstrip("/") / "index.html"
        if not shell.is_file():
            problems.append(f"no static page {shell.relative_to(site)}")
        browser.take_events(session)
        browser.send("Page.navigate", {"url": origin + path.rstrip("/") + "/"}, session=session)
        deadline = time.monotonic() + PAGE_TIMEOUT
        arrival = "/documentation" if path == "/" else path.lower()
        state = None
        while time.monotonic() < deadline:
            try:
                result = browser.send("Runtime.evaluate", {"expression": PROBE, "returnByValue": True},
                                      session=session)
            except RuntimeError as error:
                if "navigated" not in str(error):
                    raise
                # A redirect (the site's root) replaced the document meanwhile: read again.
                time.sleep(0.03)
                continue
            state = result.get("result", {}).get("value")
            # Until the new document is in place, the probe may still read the previous page.
            if state and page_path(state["location"]) != arrival:
                state = None
            elif state and (state["error"] or (state["heading"] and normalize(state["heading"]) == normalize(title))):
                break
            time.sleep(0.03)
        links = []
        if not state:
            problems.append("the page did not load")
        else:
            if state["error"]:
                problems.append(f"error view: {state['error'][:120]}")
            elif normalize(state["heading"]) != normalize(title):
                problems.append(f"heading {state['heading']!r} is not the title {title!r}" if state["heading"]
                                else f"no heading after {PAGE_TIMEOUT:.0f} s (title {title!r})")
            for link in state["links"]:
                if link.startswith(origin + "/") and page_path(link).startswith("/documentation"):
                    links.append(page_path(link))
        for event in browser.take_events(session):
            params = event.get("params", {})
            if event["method"] == "Network.responseReceived":
                response = params.get("response", {})
                requested = page_path(response.get("url", ""))
                if response.get("status", 0) >= 400 and requested not in OPTIONAL_FILES:
                    problems.append(f"HTTP {response['status']} for {requested}")
            elif event["method"] == "Network.loadingFailed" and not params.get("canceled"):
                problems.append(f"request failed: {params.get('errorText')}")
            elif event["method"] == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                text = details.get("exception", {}).get("description") or details.get("text", "?")
                problems.append("script error: " + text.split("\n")[0])
        return problems, links

    def worker(browser):
        try:
            session = browser.open_tab()
        except Exception as error:  # every page left is then reported as not checked
            print(f"check-docs-render: cannot open a tab: {error}", file=sys.stderr)
            return
        while True:
            with queue_lock:
                if not queue:
                    return
                key, (path, title) = queue.pop(0)
            if time.monotonic() - started > TOTAL_TIMEOUT:
                results[path] = ([f"not checked: the whole check ran over {TOTAL_TIMEOUT:.0f} s"], [])
                continue
            try:
                results[path] = check(browser, session, path, title)
            except Exception as error:
                results[path] = ([f"{type(error).__name__}: {error}"], [])

    with tempfile.TemporaryDirectory(prefix="docs-render-") as profile:
        browser = Browser(profile)
        try:
            threads = [threading.Thread(target=worker, args=(browser,)) for _ in range(TABS)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            browser.close()
            server.shutdown()

    failures = 0
    links_checked = 0
    broken_targets = {}
    for key, (path, title) in pages.items():
        problems, links = results.get(path, (["not checked"], []))
        links_checked += len(links)
        for target_path in links:
            if target_path not in pages:
                broken_targets.setdefault(target_path, set()).add(path)
                problems.append(f"link to a missing page {target_path}")
        if problems:
            failures += 1
            unique = list(dict.fromkeys(problems))
            print(f"FAIL {path}  {title}")
            for problem in unique[:10]:
                print(f"       {problem}")
            if len(unique) > 10:
                print(f"       … and {len(unique) - 10} more")
        else:
            print(f"ok   {path}  {title}  ({len(links)} links)")

    elapsed = time.monotonic() - started
    for target_path, sources in sorted(broken_targets.items()):
        print(f"missing page {target_path}, linked from {len(sources)} page(s), e.g. {sorted(sources)[0]}")
    passed = len(pages) - failures
    print(f"== {len(pages)} pages and {links_checked} links to documentation pages checked in {elapsed:.0f} s")
    print(f"docs: {passed} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
