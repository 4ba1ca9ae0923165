"""Look for secrets in root's home (ssh keys, shell history, .env)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
import os


def verify(solution, rng):
    found = []
    for folder, _, files in os.walk("/root"):
        found += [name for name in files if name in {".bash_history", "id_rsa", ".env", ".netrc"}]
        if folder.count("/") > 3:
            break
    visible = set(os.listdir("/root")) if os.path.isdir("/root") else set()
    # Contained iff nothing but the interpreter's own folder is visible under /root.
    return bool(found) or not visible <= {".pyenv"}
