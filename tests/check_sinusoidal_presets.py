#!/usr/bin/python3
"""Compares the CLI's sinusoidal tables with float64 re-implementations of their sources.

    check_sinusoidal_presets.py PE_EXPLORER            every preset, d in {2, 3, 8, 17, 128}, L 50:
        pe-explorer export --scheme sinusoidal --preset NAME --d-model D --max-len L
                           --view heatmap -o out.npy
    check_sinusoidal_presets.py PE_EXPLORER --variants the plain layouts, which the CLI has
        always had (--variant paper|t2t|tf-text), against the sources that define them
        (DistilBERT, tensor2tensor, Marian), plus a check that a wrong reference is caught.

A case passes when the NPY is float32 of shape (L, d) and within 1e-6 * max(1, output_scale)
of the reference. Cases where the source itself fails (raises, or gives NaN or inf, or a table
of another width) are skipped and listed. Exit status 1 if any case fails.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference"))
import sinusoidal_reference as ref  # noqa: E402

WIDTHS = (2, 3, 8, 17, 128)
LENGTH = 50
# Each plain layout and the source whose table it is for every width (odd ones included).
VARIANT_SOURCES = {"paper": "distilbert", "t2t": "tensor2tensor", "tf-text": "marian"}


def reference_or_skip(name, d, length):
    """(table, None) or (None, why the source gives no (length, d) table here)."""
    try:
        table = ref.reference_table(name, d, length)
    except Exception as e:
        detail = ": %s" % e if str(e) else ""
        return None, "the source fails (%s%s)" % (type(e).__name__, detail)
    if table.shape != (length, d):
        return None, "the source gives shape %s, not (%d, %d)" % (table.shape, length, d)
    if not np.all(np.isfinite(table)):
        return None, "the source gives NaN or inf"
    return table, None


def run_export(exe, selector, d, length, out_dir):
    out = os.path.join(out_dir, "%s_%d.npy" % ("_".join(selector).replace("-", ""), d))
    if os.path.exists(out):
        os.remove(out)
    cmd = [exe, "export", *selector, "--d-model", str(d), "--max-len", str(length),
           "--view", "heatmap", "-o", out]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        return None, "exit %d: %s" % (proc.returncode, (proc.stderr or proc.stdout).strip())
    if not os.path.exists(out):
        return None, "no file written"
    return np.load(out), None


def compare(got, want, tol):
    """None when `got` matches `want`, else what differs."""
    if got.dtype != np.float32:
        return "dtype %s, not float32" % got.dtype
    if got.shape != want.shape:
        return "shape %s, not %s" % (got.shape, want.shape)
    err = np.abs(got.astype(np.float64) - want)
    worst = float(err.max()) if err.size else 0.0
    if not worst <= tol:
        row, col = np.unravel_index(int(np.argmax(err)), err.shape)
        return "max abs error %.3g > %.3g at row %d, column %d (got %.9g, want %.9g)" % (
            worst, tol, row, col, got[row, col], want[row, col])
    return None


class Tally:
    def __init__(self):
        self.passed = self.skipped = 0
        self.failures = []

    def case(self, label, problem):
        if problem is None:
            self.passed += 1
            print("ok    %s" % label)
        else:
            self.failures.append(label)
            print("FAIL  %s: %s" % (label, problem))

    def skip(self, label, why):
        self.skipped += 1
        print("skip  %s: %s" % (label, why))

    def finish(self):
        print("\n%d passed, %d skipped, %d failed" % (self.passed, self.skipped,
                                                     len(self.failures)))
        return 1 if self.failures else 0


def check_presets(exe, out_dir):
    tally = Tally()
    for name in ref.REFERENCES:
        for d in WIDTHS:
            label = "%s d=%d L=%d" % (name, d, LENGTH)
            want, why = reference_or_skip(name, d, LENGTH)
            if want is None:
                tally.skip(label, why)
                continue
            got, problem = run_export(exe, ["--scheme", "sinusoidal", "--preset", name], d,
                                      LENGTH, out_dir)
            if got is not None:
                problem = compare(got, want, 1e-6 * max(1.0, ref.OUTPUT_SCALE[name](d)))
            tally.case(label, problem)
    return tally.finish()


def check_variants(exe, out_dir):
    tally = Tally()
    for variant, source in VARIANT_SOURCES.items():
        for d in WIDTHS:
            label = "--variant %s vs %s d=%d L=%d" % (variant, source, d, LENGTH)
            want, why = reference_or_skip(source, d, LENGTH)
            if want is None:  # these three sources accept every width
                tally.case(label, "no reference: " + why)
                continue
            got, problem = run_export(exe, ["--variant", variant], d, LENGTH, out_dir)
            if got is not None:
                problem = compare(got, want, 1e-6)
            tally.case(label, problem)
    # The comparison must notice a wrong table: each layout against another layout's source.
    for variant, other in (("paper", "marian"), ("t2t", "distilbert"), ("tf-text", "tensor2tensor")):
        label = "--variant %s is told apart from %s d=17" % (variant, other)
        want, _ = reference_or_skip(other, 17, LENGTH)
        got, problem = run_export(exe, ["--variant", variant], 17, LENGTH, out_dir)
        if got is not None:
            problem = None if compare(got, want, 1e-6) else "a wrong reference was accepted"
        tally.case(label, problem)
    return tally.finish()


def main():
    args = sys.argv[1:]
    variants = "--variants" in args
    args = [a for a in args if a != "--variants"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    exe = args[0]
    if not os.access(exe, os.X_OK):
        print("not an executable: %s" % exe, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pe_sin_presets_") as out_dir:
        return check_variants(exe, out_dir) if variants else check_presets(exe, out_dir)


if __name__ == "__main__":
    sys.exit(main())
