#!/usr/bin/env python3
"""check_install.py - `meson install` of the build into a temporary root,
then `python3 -c "import strata"` with PYTHONPATH set to the installed
package directory as the README says (nothing from the build tree: no
LD_LIBRARY_PATH, run from elsewhere), and one call through the installed
package and its installed runtime library.

  check_install.py --build=DIR --python-dir=ABSOLUTE_INSTALL_DIR
      --module=hal_sample.vmfb
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile

CHECK = r"""
import sys
import numpy as np
import strata
print("strata from", strata.__file__)
session = strata.Session(sys.argv[1], device="local-sync")
a = np.arange(4, dtype=np.float32)
print("add", session["add"](a, a).tolist())
with open("/proc/self/maps") as maps:
    libraries = sorted({line.split()[-1] for line in maps
                        if "libstrata_runtime" in line})
print("runtime", " ".join(libraries))
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--python-dir", required=True)
    parser.add_argument("--module", required=True)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="strata-python-install-") as tmp:
        destdir = os.path.join(tmp, "root")
        cmd = ["meson", "install", "-C", args.build, "--no-rebuild", "--quiet",
               "--destdir", destdir]
        result = subprocess.run(cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            sys.exit("FAILED: %s\n%s" % (shlex.join(cmd), result.stdout))
        package_root = destdir + args.python_dir
        if not os.path.isfile(os.path.join(package_root, "strata",
                                           "__init__.py")):
            sys.exit("FAILED: no strata/__init__.py under %s" % package_root)

        env = {k: v for k, v in os.environ.items()
               if k not in ("LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONHOME")}
        env["PYTHONPATH"] = package_root
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        cmd = [sys.executable, "-c", "import strata"]
        result = subprocess.run(cmd, env=env, cwd=tmp, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            sys.exit("FAILED: PYTHONPATH=%s %s\n%s" % (
                package_root, shlex.join(cmd), result.stdout))
        cmd = [sys.executable, "-c", CHECK, args.module]
        result = subprocess.run(cmd, env=env, cwd=tmp, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        print(result.stdout, end="")
        if result.returncode != 0:
            sys.exit("FAILED: the installed package could not run a call")
        lines = result.stdout.splitlines()
        expect = [
            "strata from " + os.path.join(package_root, "strata",
                                          "__init__.py"),
            "add [0.0, 2.0, 4.0, 6.0]",
        ]
        for line in expect:
            if line not in lines:
                sys.exit("FAILED: expected the line %r" % line)
        runtime = [line for line in lines if line.startswith("runtime ")]
        if not runtime or not all(path.startswith(destdir)
                                  for path in runtime[0].split()[1:]):
            sys.exit("FAILED: libstrata_runtime.so did not come from the "
                     "installed tree: %r" % runtime)
    print("python install: ok")


if __name__ == "__main__":
    main()
