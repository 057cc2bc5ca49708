#!/usr/bin/env python3
"""run_install_test.py - installs the current build into a temporary
directory (meson install --destdir), then builds tests/install/embed.c and
embed.cpp out of tree with `pkg-config --cflags --libs strata-runtime` only,
runs both on a module and checks what they print. Then it builds samples
the same way, from their sources alone: custom_module (with
strata-module-writer, the installed module writer) and hal_dispatch's
run_hal_sample, and runs them.

  run_install_test.py --build=DIR --module=hal_sample.vmfb --cc=JSON
      --cxx=JSON [--flags=JSON] SOURCE_DIR
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile


def run(cmd, env=None, what=None):
    result = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.exit("FAILED (%s, exit %d): %s\n%s" % (
            what or cmd[0], result.returncode, shlex.join(cmd), result.stdout))
    return result.stdout


def expect(output, lines, what):
    for line in lines:
        if line not in output.splitlines():
            sys.exit("FAILED: %s printed no line '%s'; it printed:\n%s" % (
                what, line, output))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--module", required=True)
    parser.add_argument("--cc", required=True)
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--flags", default="[]")
    parser.add_argument("source")
    args = parser.parse_args()
    cc = json.loads(args.cc)
    cxx = json.loads(args.cxx)
    flags = json.loads(args.flags)

    with tempfile.TemporaryDirectory(prefix="strata-install-") as tmp:
        destdir = os.path.join(tmp, "root")
        run(["meson", "install", "-C", args.build, "--no-rebuild",
             "--quiet", "--destdir", destdir], what="meson install")
        pcs = []
        for root, _, files in os.walk(destdir):
            pcs += [os.path.join(root, f) for f in files
                    if f == "strata-runtime.pc"]
        if len(pcs) != 1:
            sys.exit("FAILED: expected one installed strata-runtime.pc, "
                     "found %r" % pcs)
        pc_dir = os.path.dirname(pcs[0])
        with open(pcs[0]) as f:
            pc = f.read()
        if "Requires.private: libuv" not in pc:
            sys.exit("FAILED: strata-runtime.pc lacks "
                     "'Requires.private: libuv':\n" + pc)
        for tool in ("strata-run", "strata-dump"):
            found = [r for r, _, files in os.walk(destdir) if tool in files]
            if not found:
                sys.exit("FAILED: %s was not installed" % tool)

        # Only the installed package: pkg-config finds the .pc in the
        # staging root and prefixes its paths with it.
        env = dict(os.environ)
        env["PKG_CONFIG_PATH"] = pc_dir
        env["PKG_CONFIG_SYSROOT_DIR"] = destdir
        pkg = shlex.split(run(["pkg-config", "--cflags", "--libs",
                               "strata-runtime"], env=env,
                              what="pkg-config"))
        if not any(p.startswith("-I" + destdir) for p in pkg):
            sys.exit("FAILED: pkg-config flags do not point into the "
                     "installed tree: %r" % pkg)
        libdirs = [p[2:] for p in pkg if p.startswith("-L")]

        programs = [
            ("embed_c", cc, "embed.c", ["-std=c11", "-Wall", "-Werror"]),
            ("embed_cpp", cxx, "embed.cpp",
             ["-std=c++17", "-Wall", "-Werror", "-fno-exceptions",
              "-fno-rtti"]),
        ]
        run_env = dict(os.environ)
        # Only the installed library (meson points LD_LIBRARY_PATH at the
        # build tree's copy).
        run_env["LD_LIBRARY_PATH"] = ":".join(libdirs)
        for name, compiler, source, std in programs:
            exe = os.path.join(tmp, name)
            run(compiler + std + flags +
                [os.path.join(args.source, "tests", "install", source),
                 "-o", exe] + pkg, what="building " + source)
            for device in ("local-sync", "local-task"):
                out = run([exe, args.module, device], env=run_env,
                          what="%s on %s" % (name, device))
                what = "%s on %s" % (name, device)
                if name == "embed_c":
                    expect(out, [
                        "blocking: 2x3xf32=11 22 33 44 55 66",
                        "async entry: 1",
                        "async: 2x3xf32=11 22 33 44 55 66",
                    ], what)
                    if not any(l.startswith("unknown: NOT_FOUND: no function "
                                            "'sub' in the session")
                               for l in out.splitlines()):
                        sys.exit("FAILED: %s did not report the unknown "
                                 "function:\n%s" % (what, out))
                else:
                    expect(out, [
                        "blocking: 2x2xf32=6 8 10 12",
                        "async: 2x2xf32=12 16 20 24",
                        "unknown: not found",
                    ], what)
                print(what + ": ok")

        # The samples build on the installed tree alone.
        writer_pcs = [os.path.join(r, f) for r, _, files in os.walk(destdir)
                      for f in files if f == "strata-module-writer.pc"]
        if len(writer_pcs) != 1:
            sys.exit("FAILED: expected one installed strata-module-writer.pc, "
                     "found %r" % writer_pcs)
        writer_pkg = shlex.split(run(["pkg-config", "--cflags", "--libs",
                                      "strata-module-writer"], env=env,
                                     what="pkg-config strata-module-writer"))
        samples = os.path.join(args.source, "samples")
        cxx_std = ["-std=c++17", "-Wall", "-Werror", "-fno-exceptions",
                   "-fno-rtti", "-Wno-missing-field-initializers"]
        sample_programs = [
            # Without an app.vmfb argument it writes its app module with
            # the module writer.
            ("custom_module", [os.path.join(samples, "custom_module", f)
                               for f in ("main.cpp", "custom_module.cpp")],
             writer_pkg, []),
            ("run_hal_sample", [os.path.join(samples, "hal_dispatch",
                                             "run_hal_sample.cpp")],
             pkg, [args.module]),
        ]
        for name, sources, flags_pkg, argv in sample_programs:
            exe = os.path.join(tmp, name)
            run(cxx + cxx_std + flags + sources + ["-o", exe] + flags_pkg,
                what="building samples' " + name)
            run([exe] + argv, env=run_env, what="samples' " + name)
            print("samples' %s: ok" % name)


if __name__ == "__main__":
    main()
