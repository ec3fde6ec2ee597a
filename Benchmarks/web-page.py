#!/usr/bin/env python3
"""The phone page's costs, measured from outside: its weight, its first render in headless
Chromium on loopback, and the idle alarm-web process (context switches over a quiet period, RSS).

    Benchmarks/web-page.py [--build DIR] [--seconds N] [--loads N]

Starts alarmd headless on the simulated board (--board board/simulated.toml) and alarm-web on a
free port, both from DIR (default .build/release; `swift build -c release --product alarmd` and
`--product alarm-web` first), with a paired browser written into alarm-web's state directory (a
benchmark needs no person at the clock). Loads the page N times (default 11) as that browser and
reports the median and worst first-contentful-paint and time until the next alarm is drawn; then
leaves alarm-web idle with the page closed and counts its context switches for N seconds
(default 300) with `perf stat -e context-switches -p PID`, and reads its RSS. Needs chromium,
chromium-driver, selenium (Tests/Browser/run-browser-tests installs them) and perf.
"""
import argparse, json, os, socket, statistics, subprocess, sys, tempfile, time

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument("--build", default=os.path.join(repo, ".build/release"))
parser.add_argument("--seconds", type=int, default=300)
parser.add_argument("--loads", type=int, default=11)
options = parser.parse_args()

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(check, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    sys.exit(f"web-page: {what} did not happen in {seconds} s")


work = tempfile.mkdtemp(prefix="alarm-web-bench.")
sock = os.path.join(work, "control.sock")
web_state = os.path.join(work, "web")
os.mkdir(web_state, 0o700)
token = "b" * 64
with open(os.path.join(web_state, "pairings.json"), "w") as f:
    json.dump([{"id": "bench", "name": "benchmark", "token": token,
                "created": "2026-01-01T00:00:00Z", "lastSeen": "2026-01-01T00:00:00Z"}], f)
port = free_port()
environment = dict(os.environ, MALLOC_ARENA_MAX="1")
daemon = subprocess.Popen([os.path.join(options.build, "alarmd"), "run", "--board", os.path.join(repo, "board/simulated.toml"),
                           "--config", "/dev/null", "--socket", sock, "--state-dir", os.path.join(work, "state")],
                          stderr=subprocess.DEVNULL, env=environment)
wait_for(lambda: os.path.exists(sock), 30, "alarmd's socket")
subprocess.run([os.path.join(options.build, "alarmctl"), "--socket", sock, "schedule", "--at", "07:30", "--repeat", "weekdays",
                "--title", "Wake up"], check=True, stdout=subprocess.DEVNULL)
web = subprocess.Popen([os.path.join(options.build, "alarm-web"), "--listen", f"127.0.0.1:{port}", "--socket", sock,
                        "--state-dir", web_state, "--files", os.path.join(repo, "web")], stderr=subprocess.DEVNULL, env=environment)
url = f"http://127.0.0.1:{port}/"


def served():
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


wait_for(served, 30, "alarm-web listening")
try:
    weight = sum(os.path.getsize(os.path.join(repo, "web", name)) for name in os.listdir(os.path.join(repo, "web")))
    chrome = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=390,844"]:
        chrome.add_argument(argument)
    driver = webdriver.Chrome(options=chrome, service=Service("/usr/bin/chromedriver"))
    driver.get(url + "icon.svg")
    driver.add_cookie({"name": "alarm_session", "value": token, "path": "/", "httpOnly": True, "sameSite": "Strict"})
    paints, drawn = [], []
    for _ in range(options.loads):
        started = time.monotonic()
        driver.get(url)
        wait_for(lambda: driver.execute_script(
            "const e = document.querySelector('[data-testid=next-time]'); return !!e && e.offsetParent !== null && /\\d/.test(e.textContent)"),
            30, "the next alarm drawn")
        drawn.append((time.monotonic() - started) * 1000)
        paint = driver.execute_script(
            "return (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime")
        paints.append(paint)
    driver.quit()
    time.sleep(5)
    count = subprocess.run(["perf", "stat", "-x,", "-e", "context-switches", "-p", str(web.pid), "--", "sleep", str(options.seconds)],
                           capture_output=True, text=True).stderr
    switches = int(next(line.split(",")[0] for line in count.splitlines() if "context-switches" in line))
    with open(f"/proc/{web.pid}/smaps_rollup") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("Rss:"))
    print(f"page weight: {weight} bytes ({', '.join(sorted(os.listdir(os.path.join(repo, 'web'))))})")
    print(f"first contentful paint: median {statistics.median(paints):.0f} ms, worst {max(paints):.0f} ms ({options.loads} loads)")
    print(f"next alarm drawn (navigation to text): median {statistics.median(drawn):.0f} ms, worst {max(drawn):.0f} ms")
    print(f"alarm-web idle: {switches} context switches in {options.seconds} s = {switches * 60 / options.seconds:.1f}/min; RSS {rss / 1024:.1f} MiB")
finally:
    web.terminate()
    daemon.terminate()
    web.wait()
    daemon.wait()
    subprocess.run(["rm", "-rf", work])
