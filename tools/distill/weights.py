"""The evaluation's terms and the weights file the library builds in (engine/eval_tuned.c):
the terms' names and hand-set weights read from engine/eval.h and engine/eval.c, the file
written in the format eval_params_load reads (engine/eval.h)."""
import os
import re
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VERSION = 1
FNV_START = 2166136261


def fnv1a(data, h=FNV_START):
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def terms(root=ROOT):
    """[(enum name, term name, hand mg, hand eg)] in the engine's order."""
    header = open(os.path.join(root, "engine", "eval.h"), encoding="utf-8").read()
    body = header[header.index("typedef enum {"):header.index("EV_TERM_NB")]
    order = re.findall(r"^\s*(EV_[A-Z0-9_]+),", body, re.M)
    source = open(os.path.join(root, "engine", "eval.c"), encoding="utf-8").read()
    table = {m[0]: (m[1], int(m[2]), int(m[3]))
             for m in re.findall(r'\[(EV_[A-Z0-9_]+)\] = \{"([^"]+)", (-?\d+), (-?\d+)\}', source)}
    return [(e,) + table[e] for e in order]


def terms_id(names):
    h = FNV_START
    for n in names:
        h = fnv1a(n.encode() + b"\n", h)
    return h


def blob(names, mg, eg):
    data = b"BCEV" + struct.pack("<HHI", VERSION, len(names), terms_id(names))
    for a, b in zip(mg, eg):
        data += struct.pack("<hh", int(a), int(b))
    return data + struct.pack("<I", fnv1a(data))


def write_c(path, data, made_by, note):
    lines = ["/* The tuned evaluation weights built into the library, in the weights file format of",
             " * eval.h (read and checked by eval_params_load). Generated: do not edit; made by",
             f" *     {made_by}",
             f" * {note} */",
             '#include "eval.h"', "", "const uint8_t EVAL_TUNED_DATA[] = {"]
    for i in range(0, len(data), 12):
        lines.append("    " + " ".join(f"0x{b:02X}," for b in data[i:i + 12]))
    lines += ["};", "const size_t EVAL_TUNED_SIZE = sizeof EVAL_TUNED_DATA;", ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
