#!/usr/bin/python3
"""The daemon's share of a list: round trips of one operation on one control connection, each
answer line read whole and not decoded (the Swift client's JSONDecoder is most of a list's time).

    control-list.py SOCKET [--seed N] [--requests N] [--op alarms|alarmRecords|allAlarms]

--seed N first schedules N weekday alarms as the caller (each titled "Alarm I"), as a household's
would look. Prints p50, p99 and max in ms, the answer's size, and the daemon's CPU time per
request when --pid gives its process id (/proc/PID/stat, 10 ms ticks: use 1,000 requests).
"""
import argparse, json, socket, time, uuid

parser = argparse.ArgumentParser()
parser.add_argument("socket")
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--requests", type=int, default=300)
parser.add_argument("--op", default="alarms")
parser.add_argument("--pid", type=int)
options = parser.parse_args()

connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(options.socket)
lines = connection.makefile("rb", buffering=1 << 20)
next_id = 0


def call(op, params=None):
    global next_id
    next_id += 1
    request = {"v": 1, "id": next_id, "op": op, "params": params or {}}
    connection.sendall((json.dumps(request) + "\n").encode())
    return lines.readline()


def definition(title):
    white = {"red": 1, "green": 1, "blue": 1}
    return {
        "schedule": {"relative": {"_0": {"time": {"hour": 7, "minute": 30},
                                         "repeats": {"weekly": {"_0": ["mon", "tue", "wed", "thu", "fri"]}}}}},
        "countdownDuration": {"postAlert": 540},
        "presentation": {
            "alert": {"title": title, "stopButton": {"text": "Stop", "textColor": white, "systemImageName": "stop.circle"},
                      "secondaryButton": {"text": "Snooze", "textColor": white, "systemImageName": "zzz"},
                      "secondaryButtonBehavior": "countdown"},
            "countdown": {"title": title},
            "paused": {"title": title, "resumeButton": {"text": "Resume", "textColor": white, "systemImageName": "play.fill"}},
        },
        "tintColor": white,
        "sound": {"default": {}},
    }


def cpu_ticks():
    with open(f"/proc/{options.pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime


call("hello")
for index in range(options.seed):
    answer = json.loads(call("schedule", {"id": str(uuid.uuid4()).upper(), "definition": definition(f"Alarm {index}")}))
    if not answer.get("ok"):
        raise SystemExit(f"schedule refused: {answer['error']['message']}")
for _ in range(20):  # warm up
    call(options.op)
ticks = cpu_ticks() if options.pid else None
times, size = [], 0
for _ in range(options.requests):
    began = time.perf_counter()
    size = len(call(options.op))
    times.append((time.perf_counter() - began) * 1000)
times.sort()
report = (f"{options.op}: p50 {times[len(times) // 2]:.2f} ms, p99 {times[int(len(times) * 0.99)]:.2f} ms, "
          f"max {times[-1]:.2f} ms, {size} bytes")
if ticks is not None:
    report += f", daemon CPU {(cpu_ticks() - ticks) * 10_000 / options.requests:.0f} µs a request"
print(report)
