"""chime's benchmark harness: bench/daemon's measurements of the running chimed, one module each, and what they share
with soak/run (the notify socket, the processes started, statistics, timestamps)."""
