# Writes chlo_h200.tsv: what XLA computes for the CHLO ops without an HLO instruction (erf_inv, erfc,
# lgamma, digamma), on a GPU, for inputs spread over each function's domain and its edges. Run where JAX
# sees a GPU: python3 chlo_h200.py > chlo_h200.tsv
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
print(f"# jax {jax.__version__} on {jax.devices()[0].device_kind}: op, type, input bits, result bits (hex)")
for name, v in inputs.items():
    for tn, t in types.items():
        # The special values, then every 20th of the rest.
        x = np.concatenate([v[:len(special)], v[len(special)::20]]).astype(t)
        y = np.asarray(jax.jit(ops[name])(x))
        width = np.dtype(t).itemsize * 2
        bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(t).itemsize]
        for a, b in zip(x.view(bits), y.view(bits)):
            print(f"{name}\t{tn}\t{int(a):0{width}x}\t{int(b):0{width}x}")
