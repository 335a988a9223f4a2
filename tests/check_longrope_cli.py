#!/usr/bin/python3
"""Compares the CLI's LongRoPE tables with a float64 numpy table built from HF's formula.

    check_longrope_cli.py PE_EXPLORER

HF transformers src/transformers/modeling_rope_utils.py, _compute_longrope_parameters:
inv_freq = 1 / (ext * base ** (arange(0, d, 2) / d)) with ext = long_factor when the sequence
length is greater than original_max_position_embeddings, else short_factor (the length as
dynamic_rope_update's longrope_frequency_update takes it, max(position_ids) + 1); cos and sin
times sqrt(1 + ln s / ln original), s = max_position_embeddings / original. The layouts are
HF's rotate_half (cat(freqs, freqs)) and the interleaved repeat (each angle twice in a row).

The lists are Phi-3-mini-128k-instruct's rope_scaling as its first release's config.json had
them (head dim 96, theta 10000, original 4096, max 131072), as torchtune's phi3_mini_128k
builder copies them. Tables of 2048 rows (short list) and 8192 rows (long list), and 100 rows
with --sequence-len 8192 (long list), are compared cell for cell within 1e-6 * max(1, |v|)
(float32 rounding is 6e-8 relative). Then `export --from` of a figure must give the same
bytes, and the comparison must tell the other list and a missing attention factor apart. The
frequencies view's table must carry both lists' frequencies (HF's inv_freq with each list) and
their wavelengths, and say which list the length picks.
Exit status 1 if any case fails.
"""

import math
import os
import subprocess
import sys
import tempfile

import numpy as np

SHORT = ([1.05, 1.05, 1.05, 1.1, 1.1, 1.1500000000000001, 1.2000000000000002,
          1.2500000000000002, 1.3000000000000003, 1.3500000000000003, 1.5000000000000004]
         + [2.000000000000001] * 21 + [2.0500000000000007] * 3 + [2.1000000000000005] * 3
         + [2.1500000000000004] * 2
         + [2.3499999999999996, 2.549999999999999, 2.5999999999999988, 2.5999999999999988,
            2.7499999999999982, 2.849999999999998, 2.849999999999998, 2.9499999999999975])
LONG = [1.0299999713897705, 1.0499999523162842, 1.0499999523162842, 1.0799999237060547,
        1.2299998998641968, 1.2299998998641968, 1.2999999523162842, 1.4499999284744263,
        1.5999999046325684, 1.6499998569488525, 1.8999998569488525, 2.859999895095825,
        3.68999981880188, 5.419999599456787, 5.489999771118164, 5.489999771118164,
        9.09000015258789, 11.579999923706055, 15.65999984741211, 15.769999504089355,
        15.789999961853027, 18.360000610351562, 21.989999771118164, 23.079999923706055,
        30.009998321533203, 32.35000228881836, 32.590003967285156, 35.56000518798828,
        39.95000457763672, 53.840003967285156, 56.20000457763672, 57.95000457763672,
        59.29000473022461, 59.77000427246094, 59.920005798339844, 61.190006256103516,
        61.96000671386719, 62.50000762939453, 63.3700065612793, 63.48000717163086,
        63.48000717163086, 63.66000747680664, 63.850006103515625, 64.08000946044922,
        64.760009765625, 64.80001068115234, 64.81001281738281, 64.81001281738281]
D, BASE, ORIGINAL, MAX_POS = 96, 10000.0, 4096, 131072


def inv_freq(ext):
    return 1.0 / (np.array(ext, dtype=np.float64)
                  * np.float64(BASE) ** (np.arange(0, D, 2, dtype=np.float64) / D))


def attention_factor():
    s = MAX_POS / ORIGINAL
    return 1.0 if s <= 1 else math.sqrt(1 + math.log(s) / math.log(ORIGINAL))


def reference(length, seq, pairing, part, ext=None, attention=None):
    if ext is None:
        ext = LONG if seq > ORIGINAL else SHORT
    if attention is None:
        attention = attention_factor()
    freqs = np.outer(np.arange(length, dtype=np.float64), inv_freq(ext))
    emb = np.concatenate((freqs, freqs), -1) if pairing == "half" else np.repeat(freqs, 2, -1)
    return (np.cos(emb) if part == "cos" else np.sin(emb)) * attention


def flags(length, seq_flag=None):
    f = ["--scheme", "rope", "--d-model", str(D), "--max-len", str(length),
         "--rope-theta", repr(BASE), "--rope-scaling", "longrope",
         "--original-max-len", str(ORIGINAL), "--max-position-embeddings", str(MAX_POS),
         "--short-factor", ",".join(repr(x) for x in SHORT),
         "--long-factor", ",".join(repr(x) for x in LONG)]
    if seq_flag is not None:
        f += ["--sequence-len", str(seq_flag)]
    return f


def run(exe, args):
    proc = subprocess.run([exe, "export", *args], capture_output=True, text=True, timeout=120)
    return proc.returncode, (proc.stderr or proc.stdout).strip()


def compare(got, want):
    if got.dtype != np.float32:
        return "dtype %s, not float32" % got.dtype
    if got.shape != want.shape:
        return "shape %s, not %s" % (got.shape, want.shape)
    err = np.abs(got.astype(np.float64) - want)
    excess = err / (1e-6 * np.maximum(1.0, np.abs(want)))
    if not float(excess.max()) <= 1.0:
        row, col = np.unravel_index(int(np.argmax(excess)), excess.shape)
        return "error %.3g at row %d, column %d (got %.9g, want %.12g)" % (
            err[row, col], row, col, got[row, col], want[row, col])
    return None


def main():
    exe = sys.argv[1]
    failures, passed = [], 0

    def case(label, problem):
        nonlocal passed
        if problem is None:
            passed += 1
            print("ok    " + label)
        else:
            failures.append(label)
            print("FAIL  %s: %s" % (label, problem))

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.npy")
        tables = {}
        for length, seq_flag in ((2048, None), (8192, None), (100, 8192)):
            seq = seq_flag if seq_flag is not None else length
            for pairing in ("half", "interleaved"):
                for part in ("cos", "sin"):
                    label = "rows %d, sequence %d (%s list), %s, %s" % (
                        length, seq, "long" if seq > ORIGINAL else "short", pairing, part)
                    rc, msg = run(exe, flags(length, seq_flag) + [
                        "--rope-pairing", pairing, "--part", part, "--view", "heatmap", "-o", out])
                    if rc != 0:
                        case(label, "exit %d: %s" % (rc, msg))
                        continue
                    got = np.load(out)
                    tables[(length, pairing, part)] = got
                    case(label, compare(got, reference(length, seq, pairing, part)))

        # The comparison tells the wrong list and a missing attention factor apart.
        got = tables.get((8192, "half", "cos"))
        if got is not None:
            wrong = compare(got, reference(8192, 8192, "half", "cos", ext=SHORT))
            case("the short list is told apart at 8192", None if wrong else "not told apart")
            wrong = compare(got, reference(8192, 8192, "half", "cos", attention=1.0))
            case("attention factor 1 is told apart", None if wrong else "not told apart")

        # The frequencies table carries both lists: HF's inv_freq with the short and with the
        # long factors, their wavelengths 2 pi / inv_freq, and which list the length picks (the
        # scaled column is that list's). NPY (48, 12) float32, CSV the same with the list named.
        header = ("pair,original,scaled,original_wavelength,scaled_wavelength,treatment,ramp,"
                  "short,long,short_wavelength,long_wavelength,list")
        for length in (2048, 8192):
            picked = "long" if length > ORIGINAL else "short"
            label = "frequencies at %d rows (%s list)" % (length, picked)
            npy = os.path.join(tmp, "f.npy")
            csv = os.path.join(tmp, "f.csv")
            rc, msg = run(exe, flags(length) + ["--view", "frequencies", "-o", npy])
            if rc == 0:
                rc, msg = run(exe, flags(length) + ["--view", "frequencies", "-o", csv])
            if rc != 0:
                case(label, "exit %d: %s" % (rc, msg))
                continue
            got = np.load(npy)
            short, long_ = inv_freq(SHORT), inv_freq(LONG)
            original = inv_freq([1.0] * (D // 2))
            want = np.stack([np.arange(D // 2, dtype=np.float64), original,
                             long_ if picked == "long" else short, 2 * np.pi / original,
                             2 * np.pi / (long_ if picked == "long" else short)], 1)
            problem = compare(got[:, :5] if got.ndim == 2 else got, want)
            if problem is None and got.shape != (D // 2, 12):
                problem = "shape %s, not (%d, 12)" % (got.shape, D // 2)
            if problem is None:
                problem = compare(got[:, 7:11], np.stack(
                    [short, long_, 2 * np.pi / short, 2 * np.pi / long_], 1))
            if problem is None and not np.all(got[:, 11] == (1.0 if picked == "long" else 0.0)):
                problem = "list column %s, not %s" % (got[:, 11], picked)
            if problem is None:
                with open(csv) as f:
                    lines = f.read().splitlines()
                if lines[0] != header:
                    problem = "CSV header %r" % lines[0]
                elif len(lines) != D // 2 + 1:
                    problem = "CSV has %d rows" % (len(lines) - 1)
                else:
                    for i, line in enumerate(lines[1:]):
                        cells = line.split(",")
                        # The CSV's digits read back as the NPY's float32.
                        values = [np.float32(cells[k]) for k in (7, 8, 9, 10)]
                        if cells[11] != picked or values != list(got[i, 7:11]):
                            problem = "CSV row %d: %s" % (i, line)
                            break
            case(label, problem)
        # The check tells the lists apart: the short list's frequencies are not the long one's.
        case("the lists differ", None if np.max(np.abs(inv_freq(SHORT) - inv_freq(LONG))) > 1e-3
             else "the lists are alike")

        # export --from draws the same figure again, lists and all.
        for view, ext in (("frequencies", "png"), ("heatmap", "svg")):
            first = os.path.join(tmp, "first." + ext)
            again = os.path.join(tmp, "again." + ext)
            rc, msg = run(exe, flags(8192) + ["--view", view, "-o", first])
            if rc == 0:
                rc, msg = run(exe, ["--from", first, "-o", again])
            if rc != 0:
                case("export --from, " + view, "exit %d: %s" % (rc, msg))
                continue
            with open(first, "rb") as a, open(again, "rb") as b:
                case("export --from, " + view, None if a.read() == b.read() else "bytes differ")

        # Refusals name the flag, the rule and the value.
        for args, want in (
                (flags(100)[:-4], "needs --short-factor: 48 comma-separated numbers > 0"),
                (flags(100)[:-2] + ["--long-factor", "1,2"],
                 "--long-factor must hold d_rot / 2 = 48 numbers, one per rotated pair, got 2"),
                (flags(100)[:-2] + ["--long-factor", "1,0"],
                 "--long-factor numbers must be finite and > 0, got \"0\" at position 2")):
            rc, msg = run(exe, args + ["-o", out])
            case("refused: " + want, None if rc != 0 and want in msg else "exit %d: %s" % (rc, msg))

    print("\n%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
