# Writes chlo_h200.tsv: what XLA computes for the CHLO ops without an HLO instruction (erf_inv, erfc,
# lgamma, digamma, bessel_i1e, zeta, polygamma), on a GPU, for inputs spread over each function's domain
# and its edges. Run where JAX sees a GPU: python3 chlo_h200.py > chlo_h200.tsv
import jax
jax.config.update("jax_enable_x64", True)
import numpy as np
import ml_dtypes
from jax import lax

rs = np.random.RandomState(3)
special = [0.0, -0.0, 1.0, -1.0, 2.0, 3.0, 0.5, -0.5, -1.5, -2.0, -3.0, 1e-30, -1e-30, 1e-5, 10.0, 100.0, 1e10,
           1e30, np.inf, -np.inf, np.nan, 0.9999, -0.9999, 0.99999994, 4.0, 8.0, 26.0, 9.5, -9.5, 0.25, 1.5, 2.5,
           170.0, -170.5]


def spread(lo, hi, n):
    return np.exp(rs.uniform(np.log(lo), np.log(hi), n)) * rs.choice([-1.0, 1.0], n)


inputs = {
    "lgamma": np.concatenate([special, spread(1e-6, 1e4, 3000), rs.uniform(-10, 10, 1000)]),
    "digamma": np.concatenate([special, spread(1e-6, 1e4, 3000), rs.uniform(-10, 10, 1000)]),
    "erfc": np.concatenate([special, rs.uniform(-6, 6, 2000), spread(1e-8, 30, 2000)]),
    "erf_inv": np.concatenate([special, rs.uniform(-1, 1, 3000), 1 - np.exp(-rs.uniform(0, 30, 1000))]),
}
ops = {"lgamma": lax.lgamma, "digamma": lax.digamma, "erfc": lax.erfc, "erf_inv": lax.erf_inv}
types = {"f32": np.float32, "f64": np.float64, "bf16": ml_dtypes.bfloat16}
print(f"# jax {jax.__version__} on {jax.devices()[0].device_kind}: op, type, input bits (comma-separated), "
      "result bits (hex)")
for name, v in inputs.items():
    for tn, t in types.items():
        # The special values, then every 20th of the rest.
        x = np.concatenate([v[:len(special)], v[len(special)::20]]).astype(t)
        y = np.asarray(jax.jit(ops[name])(x))
        width = np.dtype(t).itemsize * 2
        bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(t).itemsize]
        for a, b in zip(x.view(bits), y.view(bits)):
            print(f"{name}\t{tn}\t{int(a):0{width}x}\t{int(b):0{width}x}")

# The ops of two operands, and bessel_i1e, from another seed.
rs = np.random.RandomState(5)


def magnitudes(lo, hi, n):
    return np.exp(rs.uniform(np.log(lo), np.log(hi), n))


special = [0.0, -0.0, 1.0, -1.0, 2.0, 8.0, -8.0, 7.999, 8.001, 0.5, 1e-30, 1e-5, 100.0, 700.0, 1e30, np.inf,
           -np.inf, np.nan]
bx = np.concatenate([special, magnitudes(1e-6, 1e3, 220) * rs.choice([-1.0, 1.0], 220)])
zx = np.concatenate([[1.0, 0.5, 2.0, 3.0, 2.0, 2.0, 4.0, 1.5, np.nan, np.inf], rs.uniform(1.0, 20.0, 120),
                     rs.choice([2.0, 3.0, 4.0, 5.0], 100)])
zq = np.concatenate([[1.0, 1.0, 1.0, -1.0, -2.0, 0.5, -1.5, 0.0, 1.0, 1.0], magnitudes(0.05, 100.0, 120),
                     np.concatenate([magnitudes(0.05, 50.0, 80), -magnitudes(0.1, 10.0, 20)])])
pn = np.concatenate([[0.0, 1.0, 2.0, 3.0, 1.5, -1.0, 4.0, 0.0, 1.0, 2.0], rs.choice([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 220)])
px = np.concatenate([[1.0, 1.0, 1.0, 0.5, 1.0, 1.0, 1.0, -0.5, 0.25, 1e-3], magnitudes(0.01, 100.0, 180),
                     rs.uniform(-8, 8, 40)])
for tn, t in types.items():
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(t).itemsize]
    width = np.dtype(t).itemsize * 2
    for name, args in [("bessel_i1e", [bx]), ("zeta", [zx, zq]), ("polygamma", [pn, px])]:
        xs = [a.astype(t) for a in args]
        y = np.asarray(jax.jit(getattr(lax, name))(*xs))
        for row in zip(*[x.view(bits) for x in xs], y.view(bits)):
            print(f"{name}\t{tn}\t" + ",".join(f"{int(v):0{width}x}" for v in row[:-1]) + f"\t{int(row[-1]):0{width}x}")
