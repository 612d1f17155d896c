"""Sound: fire time → the first audible sample of chime's own playback, heard on a private PulseAudio's null sink,
and chimed's resident memory with the audio pipeline idle beside a chimed that never played a sound (and, apart,
that of its sound helper, chime-sound, until it ends on its own a minute after the last sound)."""

import math
import os
import shutil
import struct
import subprocess
import tempfile
import threading
import time
import wave

from . import settings
from .instance import Instance, notification
from .processes import spawn, stop_process
from .stats import percentile

RATE = 44_100
CHANNELS = 2
# 5 ms of frames per read of the monitor: the arrival time of a block dates its samples within that.
BLOCK_FRAMES = RATE // 200
THRESHOLD = 0.01 * 32767


class AudioServer:
    """A PulseAudio with a null sink in a temporary runtime directory, its monitor read raw as it comes."""

    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix="chimed-bench-audio-")
        self.address = f"unix:{self.directory}/native"
        script = os.path.join(self.directory, "server.pa")
        with open(script, "w") as handle:
            handle.write(
                f"load-module module-native-protocol-unix auth-anonymous=1 socket={self.directory}/native\n"
                "load-module module-null-sink sink_name=recorded\nset-default-sink recorded\n"
            )
        env = dict(os.environ, XDG_RUNTIME_DIR=self.directory, HOME=self.directory, PULSE_SERVER=self.address)
        self.server = spawn(
            ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--system=no", "-F",
             script],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 15
        while not os.path.exists(f"{self.directory}/native"):
            if time.monotonic() > deadline:
                raise RuntimeError("PulseAudio did not start")
            time.sleep(0.02)
        self.reader = None
        self.onsets = []

    def listen(self):
        """Reads the monitor from now on; each stretch of sound after silence is noted (ns since the epoch of its
        first audible sample, dated by the arrival of its block)."""
        self.reader = spawn(
            ["parec", "--device=recorded.monitor", "--latency-msec=5", f"--rate={RATE}", f"--channels={CHANNELS}",
             "--format=s16le", "--raw"],
            env=dict(os.environ, PULSE_SERVER=self.address), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, bufsize=0,
        )
        self.first_block = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self.first_block.wait(15):
            raise RuntimeError("parec read nothing")

    def _read(self):
        size = BLOCK_FRAMES * CHANNELS * 2
        pending = b""
        position = 0
        last_loud = 0
        sounding = False
        while True:
            chunk = self.reader.stdout.read(size)
            if not chunk:
                return
            arrived = time.time_ns()
            self.first_block.set()
            pending += chunk
            frames = len(pending) // (CHANNELS * 2)
            samples = struct.unpack(f"<{frames * CHANNELS}h", pending[: frames * CHANNELS * 2])
            pending = pending[frames * CHANNELS * 2 :]
            for index in range(frames):
                loud = abs(samples[index * CHANNELS]) > THRESHOLD
                if loud and not sounding:
                    self.onsets.append(arrived - (frames - index) * 1_000_000_000 // RATE)
                    sounding = True
                if loud:
                    last_loud = position + index
                elif sounding and position + index - last_loud > RATE // 10:
                    sounding = False
            position += frames

    def close(self):
        for proc in (self.reader, self.server):
            if proc is not None:
                stop_process(proc)
        shutil.rmtree(self.directory, ignore_errors=True)


def tone(path, seconds=0.25, frequency=440):
    with wave.open(path, "wb") as out:
        out.setnchannels(CHANNELS)
        out.setsampwidth(2)
        out.setframerate(RATE)
        frames = bytearray()
        for index in range(int(seconds * RATE)):
            value = int(0.5 * 32767 * math.sin(2 * math.pi * frequency * index / RATE))
            frames += struct.pack("<hh", value, value)
        out.writeframes(bytes(frames))


def resident_mib(instance):
    return instance.status("VmRSS") / 1024


def helper_mib(instance):
    """VmRSS of chimed's sound helper (its child chime-sound), or None when it does not run."""
    for task in os.listdir(f"/proc/{instance.proc.pid}/task"):
        with open(f"/proc/{instance.proc.pid}/task/{task}/children") as handle:
            for child in handle.read().split():
                try:
                    with open(f"/proc/{child}/comm") as comm:
                        if comm.read().strip() != "chime-sound":
                            continue
                    with open(f"/proc/{child}/status") as status:
                        for line in status:
                            if line.startswith("VmRSS:"):
                                return int(line.split()[1]) / 1024
                except FileNotFoundError:
                    continue
    return None


def measure_sound(quick):
    """50 sounds (10 with --quick) a second apart, each played once by chimed --user; the first is the warm-up that
    starts GStreamer and is not counted. Then chimed's VmRSS with the pipeline idle, beside another chimed on the
    same configuration that was never asked to play."""
    count = 10 if quick else 50
    audio = AudioServer()
    player = Instance("sound")
    silent = Instance("sound-silent")
    try:
        sound_file = os.path.join(player.directory, "tone.wav")
        tone(sound_file)
        start = int(time.time()) + 4
        fires = [start + index for index in range(count + 1)]
        for index, fire in enumerate(fires):
            extra = f"Sound={sound_file}\n"
            player.write(f"s{index:03}.notification", notification(f"s{index:03}", f"At=@{fire}", extra=extra))
            # The same schedule without sound, for the memory beside.
            silent.write(f"s{index:03}.notification", notification(f"s{index:03}", f"At=@{fire + 3600}"))
        environment = {"PULSE_SERVER": audio.address}
        player.start(arguments=("--user",), environment=environment)
        silent.start(arguments=("--user",), environment=environment)
        player.wait_ready()
        silent.wait_ready()
        audio.listen()
        time.sleep(max(0.0, fires[-1] + 1.5 - time.time()))
        time.sleep(2)
        idle_mib = resident_mib(player)
        silent_mib = resident_mib(silent)
        helper = helper_mib(player)
        onsets = sorted(audio.onsets)
        lags = []
        for fire in fires[1:]:
            fire_ns = fire * 1_000_000_000
            heard = next((onset for onset in onsets if onset >= fire_ns - 50_000_000), None)
            if heard is not None and heard - fire_ns < 900_000_000:
                lags.append((heard - fire_ns) / 1e6)
        if len(lags) < count * 0.9:
            raise RuntimeError(f"heard {len(lags)} of {count} sounds; onsets {len(onsets)}")
        stderr = open(player.stderr_path).read()
        if "was not played" in stderr:
            raise RuntimeError(stderr)
    finally:
        player.close()
        silent.close()
        audio.close()
    return {
        "sounds": count,
        "heard": len(lags),
        "p50_ms": round(percentile(lags, 0.50), 1),
        "p99_ms": round(percentile(lags, 0.99), 1),
        "max_ms": round(max(lags), 1),
        "idle_rss_mib": round(idle_mib, 1),
        "silent_rss_mib": round(silent_mib, 1),
        "idle_above_silent_mib": round(idle_mib - silent_mib, 1),
        "helper_rss_mib": None if helper is None else round(helper, 1),
    }
