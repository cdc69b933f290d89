#!/usr/bin/env python3
"""Renders every page of a DocC site (scripts/build-docs.sh) in headless Chromium and fails
unless each page has its static HTML file, renders a heading equal to its title (the root: the
landing page's), shows no error view, makes no failed request and throws no script error, and
every link to /documentation/… in it reaches a page of the site. Serves the site on loopback;
drives one Chromium over the DevTools pipe (fds 3 and 4), several tabs at once. Every page's
static file is the same shell: a tab's first page and one in FULL_LOAD_EVERY are loaded from
their URL, the others reached inside the app already loaded, as a link's click reaches them."""
import collections, concurrent.futures, fcntl, functools, http.server, json, os, pathlib, posixpath, subprocess, sys, tempfile, threading, time, urllib.parse

PAGE_TIMEOUT, TOTAL_TIMEOUT, TABS, FULL_LOAD_EVERY = 20.0, 300.0, 4, 10
OPTIONAL_FILES = {"/theme-settings.json"}  # asked for by DocC's app, need not exist
PROBE = r"""(() => {
  const text = (node) => node ? node.textContent.replace(/\s+/g, ' ').trim() : null;
  const error = document.querySelector('.generic-error, .not-found, [class*="error-content"]');
  return {error: error ? (text(error) || 'an error view') : null, heading: text(document.querySelector('main h1, #app h1')),
          links: Array.from(document.querySelectorAll('a[href]'), (a) => a.href), location: location.href};
})()"""
# Within the app already loaded: DocC's Vue router, then a frame drawn after the route's update.
NAVIGATE = r"""(async (path) => {
  const app = document.querySelector('#app').__vue__;
  const arrived = app.$router.push(path).then(() => app.$nextTick()).then(() => new Promise((resolve) => setTimeout(resolve, 0)));
  await Promise.race([arrived, new Promise((_, reject) => setTimeout(() => reject(new Error('no route after 10 s')), 10000))]);
})(%s)"""


class Browser:
    """Chromium on a DevTools pipe: NUL-ended JSON. A reader thread hands each reply to its
    sender and keeps each tab's events for its worker."""

    def __init__(self, profile):
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def give_fds():  # both moved above 10 first, so that neither dup2 overwrites the other pipe's end
            for high, fd in zip([fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser_read, from_browser_write)], (3, 4)):
                os.dup2(high, fd)

        with open(os.path.join(profile, "chromium.log"), "wb") as log:  # Chromium writes to its own copy
            self.process = subprocess.Popen(
                ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run", "--mute-audio",
                 "--disable-extensions", "--disable-background-networking", "--disable-component-update", "--user-data-dir=" + profile, "about:blank"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=give_fds, close_fds=False)  # Python's own fds are not inheritable
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._lock = threading.Lock()
        self._next_id, self._waiting, self._events, self._closed = 0, {}, collections.defaultdict(list), None
        threading.Thread(target=self._read_loop, daemon=True).start()

    def _read_loop(self):
        buffer = b""
        try:
            while chunk := os.read(self._from_browser, 1 << 16):
                *messages, buffer = (buffer + chunk).split(b"\0")
                for message in map(json.loads, messages):
                    with self._lock:
                        if message.get("id") in self._waiting:
                            slot = self._waiting.pop(message["id"])
                            slot[1] = message
                            slot[0].set()
                        elif "method" in message:  # an event, kept for its tab (sessionId)
                            self._events[message.get("sessionId")].append(message)
            raise RuntimeError("Chromium closed its DevTools pipe (see chromium.log)")
        except Exception as error:  # the browser is gone: fail every waiting command
            with self._lock:
                self._closed = error
                while self._waiting:
                    self._waiting.popitem()[1][0].set()

    def send(self, method, params=None, session=None, timeout=30.0):
        with self._lock:
            if self._closed:
                raise RuntimeError(str(self._closed))
            self._next_id += 1
            slot = self._waiting[self._next_id] = [threading.Event(), None]
            message = {"id": self._next_id, "method": method, "params": params or {}} | ({"sessionId": session} if session else {})
            os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        if not slot[0].wait(timeout):
            raise TimeoutError(f"Chromium did not answer {method} within {timeout:.0f} s")
        if slot[1] is None:
            raise RuntimeError(f"{method}: {self._closed}")
        if "error" in slot[1]:
            raise RuntimeError(f"{method}: {slot[1]['error'].get('message')}")
        return slot[1].get("result", {})

    def open_tab(self):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.send(f"{domain}.enable", session=session)
        return session

    def take_events(self, session):
        with self._lock:
            return self._events.pop(session, [])

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)


def normalize(text):
    return "".join((text or "").split()).replace("\u200b", "")


def page_path(url):
    """The site path of a URL, lower case, without fragment, query or trailing slash."""
    path = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    return (posixpath.normpath(path) if path else "/").rstrip("/").lower() or "/"


def check(browser, session, site, origin, path, title, full_load):
    problems = [] if (site / path.lstrip("/") / "index.html").is_file() else [f"no static page {path}/index.html"]
    browser.take_events(session)
    if full_load:
        browser.send("Page.navigate", {"url": origin + path.rstrip("/") + "/"}, session=session)
    else:
        # The app already in the tab goes to the page as a click on a link does: it fetches the
        # page's data and renders it, without loading the same shell and scripts again.
        # The promise settles once the route is confirmed (the data read) and the page drawn.
        state = browser.send("Runtime.evaluate", {"expression": NAVIGATE % json.dumps(path.rstrip("/") + "/"),
                                                  "awaitPromise": True, "returnByValue": True}, session=session)
        if state.get("exceptionDetails"):
            problems.append("the app did not go to the page: " + state["exceptionDetails"].get("text", "?"))
    arrival, state, deadline = ("/documentation" if path == "/" else path.lower()), None, time.monotonic() + PAGE_TIMEOUT
    while time.monotonic() < deadline:
        time.sleep(0.03)
        try:
            state = browser.send("Runtime.evaluate", {"expression": PROBE, "returnByValue": True},
                                 session=session).get("result", {}).get("value")
        except RuntimeError as error:  # a redirect (the root) replaced the document meanwhile: poll again
            if "navigated" not in str(error):
                raise
        if state and page_path(state["location"]) != arrival:
            state = None  # still the previous document
        elif state and (state["error"] or normalize(state["heading"]) == normalize(title)):
            break
    if not state:
        problems.append("the page did not load")
    elif state["error"]:
        problems.append(f"error view: {state['error'][:120]}")
    elif normalize(state["heading"]) != normalize(title):
        problems.append(f"heading {state['heading']!r} is not the title {title!r}")
    links = [page_path(link) for link in (state["links"] if state else [])
             if link.startswith(origin + "/") and page_path(link).startswith("/documentation")]
    for event in browser.take_events(session):
        params = event.get("params", {})
        status, url = params.get("response", {}).get("status", 0), page_path(params.get("response", {}).get("url", ""))
        if event["method"] == "Network.responseReceived" and status >= 400 and url not in OPTIONAL_FILES:
            problems.append(f"HTTP {status} for {url}")
        elif event["method"] == "Network.loadingFailed" and not params.get("canceled"):
            problems.append(f"request failed: {params.get('errorText')}")
        elif event["method"] == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            problems.append("script error: " + (details.get("exception", {}).get("description") or details.get("text", "?")).split("\n")[0])
    return problems, links


def main():  # SITE_DIR, checked by check-docs-render.sh
    site = pathlib.Path(sys.argv[1]).resolve()
    data = site / "data"
    pages = {}  # lower-case path -> (path, title)
    for file in sorted(data.glob("documentation/**/*.json")) + sorted(data.glob("documentation.json")):
        path = "/" + file.relative_to(data).with_suffix("").as_posix()
        pages[path.lower()] = (path, json.loads(file.read_text()).get("metadata", {}).get("title"))
    if "/documentation" not in pages:
        sys.exit(f"check-docs-render: no pages in {site} (build it with scripts/build-docs.sh)")
    pages["/"] = ("/", pages["/documentation"][1])  # the root redirects to the landing page

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(
        type("Quiet", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *_: None}), directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    print(f"== {len(pages)} pages of {site}, served at {origin}")
    started, tabs = time.monotonic(), threading.local()

    def run(numbered):  # on one of TABS threads, each with a tab of its own
        number, (path, title) = numbered
        try:
            if time.monotonic() - started > TOTAL_TIMEOUT:
                return [f"not checked: the check ran over {TOTAL_TIMEOUT:.0f} s"], []
            # A tab's first page, the root (a redirect), one page in FULL_LOAD_EVERY and the page
            # after one that failed are loaded from their URL, as a visitor's first page is;
            # the others are reached inside the app, as a visitor's next pages are.
            full_load = getattr(tabs, "session", None) is None or path == "/" or number % FULL_LOAD_EVERY == 0 or tabs.failed
            tabs.session = getattr(tabs, "session", None) or browser.open_tab()
            problems, links = check(browser, tabs.session, site, origin, path, title, full_load)
            tabs.failed = bool(problems)
            return problems, links
        except Exception as error:
            tabs.failed = True
            return [f"{type(error).__name__}: {error}"], []

    with tempfile.TemporaryDirectory(prefix="docs-render-") as profile:
        browser = Browser(profile)
        try:
            with concurrent.futures.ThreadPoolExecutor(TABS) as pool:
                results = list(pool.map(run, enumerate(pages.values())))
        finally:
            browser.close()
            server.shutdown()

    failures = links_checked = 0
    for (path, title), (problems, links) in zip(pages.values(), results):
        links_checked += len(links)
        problems += [f"link to a missing page {link}" for link in links if link not in pages]
        if problems:
            failures += 1
            unique = list(dict.fromkeys(problems))
            print(f"FAIL {path}  {title}\n" + "\n".join(f"       {problem}" for problem in unique[:10])
                  + (f"\n       … and {len(unique) - 10} more" if len(unique) > 10 else ""))
        else:
            print(f"ok   {path}  {title}  ({len(links)} links)")
    print(f"== {len(pages)} pages and {links_checked} links to documentation pages checked in {time.monotonic() - started:.0f} s")
    print(f"docs: {len(pages) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
