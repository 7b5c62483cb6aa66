# python3 fit.py DATA.csv[+MORE.csv…] [K] [weights.in] [l2]
# Fit hard's Teams evaluation terms to 4pchess scores: minimise mean (s(Xw/K) - s(y/K))^2 + l2 |w - w0|^2.
import numpy as np, sys
K = float(sys.argv[2]) if len(sys.argv) > 2 else 400.0
# Each file's last fifth is held out: the rows come game by game, so a game's positions (which are
# alike) fall on one side of the split, not on both.
parts = [np.loadtxt(f, delimiter=",", ndmin=2) for f in sys.argv[1].split("+")]
held = np.concatenate([np.arange(len(p)) >= len(p) - len(p) // 5 for p in parts])
d = np.vstack(parts)
y, X = d[:, 0], d[:, 1:]
# 4pchess prints its score from the mover's team's view (checked: against material, r = +0.87 with
# Red-Yellow to move, -0.91 with Blue-Green to move): turn it to Red-Yellow's.
y = np.where(X[:, 134] < 0, -y, y)
n, m = X.shape
VAL = [100, 300, 400, 500, 950, 0]
w0 = np.zeros(m)
for k in range(6):
    for adv in range(14):
        v = VAL[k]
        if k == 0:
            s = min(max(adv - 1, 0), 9); v += s * s * 4
        c = (13 - abs(2 * adv - 13)) / 2
        v += {0: 0, 1: 4, 2: 4, 3: 1, 4: 1, 5: -3}[k] * c
        w0[k * 21 + adv] = v
    for lat in range(7):
        w0[k * 21 + 14 + lat] = {0: 0, 1: 4, 2: 4, 3: 1, 4: 1, 5: -3}[k] * lat
S = 126
w0[S], w0[S + 1] = 30, 15
w0[S + 2:S + 6] = [90, 70, 45, 20]
w0[S + 6], w0[S + 7] = 0, 4
w0[S + 8] = 0
sig = lambda v: 1 / (1 + np.exp(-v / K))
t = sig(y)
def loss(w): return np.mean((sig(X @ w) - t) ** 2)
test, train = np.flatnonzero(held), np.flatnonzero(~held)
Xt, tt = X[train], t[train]
def fit(l2, steps=4000, lr=2.0):
    w = w0.copy(); mo = np.zeros(m); ve = np.zeros(m)
    for i in range(1, steps + 1):
        p = sig(Xt @ w)
        g = Xt.T @ ((p - tt) * p * (1 - p) / K) * 2 / len(train) + 2 * l2 * (w - w0)
        mo = 0.9 * mo + 0.1 * g; ve = 0.999 * ve + 0.001 * g * g
        w -= lr * (mo / (1 - 0.9 ** i)) / (np.sqrt(ve / (1 - 0.999 ** i)) + 1e-12)
    return w
print(f"n={n} m={m} K={K}")
print(f"current eval: train {np.mean((sig(Xt @ w0) - tt) ** 2):.5f} test {np.mean((sig(X[test] @ w0) - t[test]) ** 2):.5f}")
print(f"constant (mean): test {np.mean((np.mean(tt) - t[test]) ** 2):.5f}")
if len(sys.argv) > 3:
    import os, re
    if os.path.exists(sys.argv[3]):
        text = open(sys.argv[3]).read()
        before = np.array([float(v) for v in re.findall(r"-?\d+", text[text.index("["):])])
        if len(before) == m:
            print(f"weights in {sys.argv[3]}: test {np.mean((sig(X[test] @ before) - t[test]) ** 2):.5f}")
best = None
for l2 in [float(sys.argv[4])] if len(sys.argv) > 4 else [1e-6, 1e-7, 1e-8, 1e-9]:
    w = fit(l2)
    te = np.mean((sig(X[test] @ w) - t[test]) ** 2)
    print(f"l2={l2:g}: train {np.mean((sig(Xt @ w) - tt) ** 2):.5f} test {te:.5f}")
    if best is None or te < best[0]: best = (te, l2, w)
if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as out:
        out.write("// Written by tools/texel/fit.py: " + " ".join(sys.argv[1:3]) + f", l2 {best[1]:g}, {n} positions\n")
        out.write("[\n" + "".join(f"    {round(v)},\n" for v in best[2]) + "]\n")
w = best[2]
names = "P N B R Q K".split()
for k in range(6):
    print(names[k], "adv", " ".join(f"{v:.0f}" for v in w[k*21:k*21+14]), "| lat", " ".join(f"{v:.0f}" for v in w[k*21+14:k*21+21]))
print("shield", w[S:S+2].round(0), "queen near", w[S+2:S+6].round(0), "attack u,u2", w[S+6:S+8].round(2), "tempo", w[S+8].round(0))
print("threats by turn order from the mover 0..3: count", w[S+9:S+13].round(0), "value/half-pawn (the mover: its largest)", w[S+13:S+17].round(1))
