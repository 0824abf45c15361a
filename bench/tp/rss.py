"""rss.py CMD...: runs CMD and prints its peak RSS (getrusage of the child)
on stderr as `rank R peak RSS N MB` (R: the Open MPI rank, or -)."""
import os
import resource
import subprocess
import sys

st = subprocess.call(sys.argv[1:])
r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("rank %s peak RSS %.1f MB" % (os.environ.get("OMPI_COMM_WORLD_RANK", "-"),
                                    r / 1024), file=sys.stderr)
sys.exit(st)
