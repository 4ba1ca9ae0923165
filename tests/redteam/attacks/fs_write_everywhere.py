"""Look for any writable directory or file anywhere in the sandbox, and try each directory."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
# time_limit_s: 30
import os
import stat

DEVICES = {"null", "zero", "random", "urandom"}


def verify(solution, rng):
    writable = []
    directories = 0
    for folder, subfolders, files in os.walk("/"):
        directories += 1
        try:
            with open(os.path.join(folder, ".redteam_probe"), "w") as handle:
                handle.write("x")
            writable.append(folder)
        except OSError:
            pass
        for name in files:
            path = os.path.join(folder, name)
            # Writing to /dev/null and friends changes nothing; any other writable file does.
            if os.access(path, os.W_OK) and not stat.S_ISCHR(os.stat(path).st_mode):
                writable.append(path)
    # Contained iff nothing is writable, /dev holds the four devices only (no ptmx, no shm),
    # and the walk did see the libraries.
    return bool(writable) or set(os.listdir("/dev")) != DEVICES or directories < 100
