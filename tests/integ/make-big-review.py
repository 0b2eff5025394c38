#!/usr/bin/env python3
"""make-big-review.py REPO [FILES] [MB] - give the git repository REPO (on
branch main) an agent branch lazaret/agent-default with one commit adding
FILES small files (default 10000) under many/ and 0big.txt of MB megabytes
(default 50) of numbered lines ("+line 0000001 xxx..." in a diff); main is
left where it was. For the review view's large-diff test and bench."""
import os
import subprocess
import sys

repo = sys.argv[1]
files = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
mb = int(sys.argv[3]) if len(sys.argv) > 3 else 50


def git(*args):
    subprocess.run(["git", "-C", repo, *args], check=True, timeout=300)


git("checkout", "-q", "-b", "agent-work")
os.makedirs(os.path.join(repo, "many"), exist_ok=True)
for i in range(files):
    with open(os.path.join(repo, "many", "f%05d.txt" % i), "w") as f:
        f.write("file %d\n" % i)
pad = "x" * 64
n = 0
with open(os.path.join(repo, "0big.txt"), "w") as f:
    size = 0
    while size < mb * 1024 * 1024:
        n += 1
        line = "line %07d %s\n" % (n, pad)
        f.write(line)
        size += len(line)
git("add", "-A")
git("commit", "-qm", "agent: %d files and a %d MB file" % (files, mb))
git("checkout", "-q", "main")
git("branch", "-q", "-m", "agent-work", "lazaret/agent-default")
print(n)
