"""A textbook reference for the modal checks: the linear Reissner-Mindlin
plate element with bilinear fields and MITC4 transverse shear (Bathe and
Dvorkin, IJNME 21 (1985) 367), consistent mass, on an N x N mesh of a
simply supported (w = 0 on the edges, rotations free) square plate.

Written from the textbook, not from crdyn's sources, so that crdyn's
element at its flat initial state can be compared with it: the unknowns
per node are w and the rotation measures beta = (dr_x, dr_y) of the
normal, gamma = grad w + beta, chi = sym grad beta (docs/theory.md §2 with the
initial state flat and strain-free), shear tied at the edge midpoints
(gamma_x at eta = -1, 1; gamma_y at xi = -1, 1; linear in between for a
rectangle), 2x2 Gauss for everything, mass rho h w^2 + rho h^3/12 |beta|^2.

Needs numpy (a dense eigensolver: 867 unknowns at N = 16).
"""
import math

import numpy as np


def ssss_frequencies(N, a=1.0, h=0.01, E=2.1e11, nu=0.3, rho=7800.0, nmodes=6):
    D1 = E / (1 - nu * nu) * np.array([[1, nu, 0], [nu, 1, 0], [0, 0, (1 - nu) / 2]])
    Db = h ** 3 / 12 * D1
    Ds = 5.0 / 6.0 * E / (2 * (1 + nu)) * h * np.eye(2)
    le = a / N
    xs = np.array([-1, 1, 1, -1.0])
    ys = np.array([-1, -1, 1, 1.0])

    def shape(xi, eta):  # N and its x, y derivatives on a le x le square
        n = 0.25 * (1 + xi * xs) * (1 + eta * ys)
        return n, 0.5 * xs * (1 + eta * ys) / le, 0.5 * ys * (1 + xi * xs) / le

    def shear_rows(xi, eta):  # gamma = (w,x + bx, w,y + by) at a point, 2 x 12
        n, nx, ny = shape(xi, eta)
        B = np.zeros((2, 12))
        B[0, 0::3], B[0, 1::3] = nx, n
        B[1, 0::3], B[1, 2::3] = ny, n
        return B

    gx_lo, gx_hi = shear_rows(0, -1)[0], shear_rows(0, 1)[0]
    gy_lo, gy_hi = shear_rows(-1, 0)[1], shear_rows(1, 0)[1]
    Ke = np.zeros((12, 12))
    Me = np.zeros((12, 12))
    g = 1 / math.sqrt(3)
    det = (le / 2) ** 2
    for xi, eta in ((-g, -g), (g, -g), (g, g), (-g, g)):
        n, nx, ny = shape(xi, eta)
        Bb = np.zeros((3, 12))
        Bb[0, 1::3], Bb[1, 2::3] = nx, ny
        Bb[2, 1::3], Bb[2, 2::3] = ny, nx
        Bs = np.vstack((0.5 * (1 - eta) * gx_lo + 0.5 * (1 + eta) * gx_hi,
                        0.5 * (1 - xi) * gy_lo + 0.5 * (1 + xi) * gy_hi))
        Ke += (Bb.T @ Db @ Bb + Bs.T @ Ds @ Bs) * det
        Nm = np.zeros((3, 12))
        Nm[0, 0::3], Nm[1, 1::3], Nm[2, 2::3] = n, n, n
        Me += Nm.T @ np.diag([rho * h, rho * h ** 3 / 12, rho * h ** 3 / 12]) @ Nm * det
    nn = (N + 1) ** 2
    K = np.zeros((3 * nn, 3 * nn))
    M = np.zeros_like(K)
    for j in range(N):
        for i in range(N):
            nodes = (j * (N + 1) + i, j * (N + 1) + i + 1, (j + 1) * (N + 1) + i + 1, (j + 1) * (N + 1) + i)
            d = np.array([[3 * q, 3 * q + 1, 3 * q + 2] for q in nodes]).ravel()
            K[np.ix_(d, d)] += Ke
            M[np.ix_(d, d)] += Me
    fixed = [3 * (j * (N + 1) + i) for j in range(N + 1) for i in range(N + 1) if i in (0, N) or j in (0, N)]
    free = np.setdiff1d(np.arange(3 * nn), fixed)
    K, M = K[np.ix_(free, free)], M[np.ix_(free, free)]
    Li = np.linalg.inv(np.linalg.cholesky(M))
    w2 = np.linalg.eigvalsh(Li @ K @ Li.T)[:nmodes]
    return [math.sqrt(x) / (2 * math.pi) for x in w2]


if __name__ == "__main__":
    import sys
    print(" ".join(f"{f:.10g}" for f in ssss_frequencies(int(sys.argv[1]) if len(sys.argv) > 1 else 16)))
