#!/usr/bin/env python3
"""The rational erf of native/src/cpu/erf_lanes.h: erf(x) = x * P(u) / Q(u), u = x^2 / 16, for |x| <= 3.925
(past it erf rounds to +-1 in float32), P of degree 6 and Q of degree 5 with Q(0) = 1. Fitted to erf(x)/x by
iterated linear least squares on the relative error (Loeb's iteration, weights 1/Q of the last pass), then
checked in float32 as the kernel evaluates it (Horner, one rounding per step). Needs numpy and scipy
(Debian's python3); prints the coefficients as C++ float literals and the error.

    python3 scripts/derive/erf-rational.py
"""
import numpy as np
from scipy.special import erf

LIMIT = 3.925
SCALE = 16.0
DEG_P, DEG_Q = 6, 5

x = np.sqrt(np.linspace(0, LIMIT * LIMIT, 40001))
u = x * x / SCALE
target = np.where(x > 0, erf(x) / np.where(x > 0, x, 1), 2 / np.sqrt(np.pi))

weights = np.ones_like(u)
for _ in range(30):
    # P(u) - target * (Q(u) - 1) = target, relative to target and weighted by the last Q
    columns = [u**i for i in range(DEG_P + 1)] + [-target * u**j for j in range(1, DEG_Q + 1)]
    a = np.vstack(columns).T * (weights / target)[:, None]
    solution, *_ = np.linalg.lstsq(a, weights, rcond=None)
    p = solution[: DEG_P + 1]
    q = np.concatenate([[1.0], solution[DEG_P + 1 :]])
    weights = 1 / np.abs(np.polyval(q[::-1], u))

p32, q32 = p.astype(np.float32), q.astype(np.float32)
xs = np.linspace(-LIMIT, LIMIT, 2_000_001).astype(np.float32)
us = (xs * xs * np.float32(1 / SCALE)).astype(np.float32)


def horner(coefficients):
    acc = np.full_like(us, coefficients[-1])
    for c in coefficients[-2::-1]:
        acc = (acc.astype(np.float64) * us + np.float64(c)).astype(np.float32)  # an fma: one rounding
    return acc


approx = (xs * (horner(p32) / horner(q32)).astype(np.float32)).astype(np.float32)
exact = erf(xs.astype(np.float64))
print("P:", ", ".join(f"{v:.9e}f" for v in p32))
print("Q:", ", ".join(f"{v:.9e}f" for v in q32))
print(f"max |error| {np.max(np.abs(approx - exact)):.3g} on [-{LIMIT}, {LIMIT}]")
