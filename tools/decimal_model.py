#!/usr/bin/env python3
"""A model of the server's Decimal128 $exp, $ln, $log10, $log, $pow and trigonometry, written
apart from the engine (src/value/decimal_math.rs) to give expr::issue13_decimal_transcendentals
its expected values.

The server's decimal library (Intel BID) computes these through IEEE binary128; this model does
the binary128 steps with mpmath (113-bit, round-to-nearest-even) and the decimal steps with
Python's decimal module in a decimal128 context, following the same bid128_* paths. It is not
the server: where the two agree with mongod's own outputs (jstests/aggregation/expressions/
log_exponential_expressions.js, the manual's $acos/$acosh examples) they are checked; the rest
are the model's values.

    pip install mpmath
    python3 tools/decimal_model.py ln 2.5        # one value
    python3 tools/decimal_model.py               # every function on a few arguments
"""
import sys
import mpmath
from mpmath import mp, mpf
from decimal import Decimal as D, Context, ROUND_HALF_EVEN, localcontext
C = Context(prec=34, rounding=ROUND_HALF_EVEN, Emax=6144, Emin=-6143, clamp=1)
import decimal; decimal.setcontext(C)
mp.prec = 600
def q(x):
    with mp.workprec(113):
        return +x
def qd(s):  # decimal string -> binary128
    with mp.workprec(113):
        return mpf(str(s))
def exact(s): return mpf(str(s))  # at 600 bits
def dec(b):  # binary128 -> decimal128 (Intel rules)
    if b == 0: return D(0)
    sign = -1 if b < 0 else 1
    b = abs(b)
    man, e = b.man_exp
    man = int(man)
    while man % 2 == 0: man //= 2; e += 1
    if e >= 0:
        c = man << e
        if c < 10**34: return D(sign * c)
    elif e >= -48:
        c = man * 5**(-e)
        if c < 10**34: return D(sign*c).scaleb(e)
    with localcontext() as ctx:
        ctx.prec = 20000; ctx.Emin = -999999; ctx.Emax = 999999
        v = D(man) * D(2)**e if e >= 0 else D(man) * D(5)**(-e) / D(10)**(-e)
    r = C.plus(v)
    return C.minus(r) if sign < 0 else r
def qf(f, x): return q(f(x))
ONE = mpf(1)
def ln(s):
    x = D(s); xq = qd(s); r = qf(mpmath.log, xq)
    eb = q(xq - 1)
    if abs(eb) < 0.5:
        e = C.subtract(x, D(1)); tmp = qd(e)
        rt = q(q(eb - tmp) / xq); r = q(r - rt)
    return r
def f_ln(s): return dec(ln(s))
INV_LN10 = None
def f128(hi, lo):
    bits = (hi << 64) | lo
    sign = bits >> 127; e = (bits >> 112) & 0x7fff; m = bits & ((1<<112)-1)
    return mpf((1<<112)|m) * mpf(2)**(e-16383-112) * (-1 if sign else 1)
INV_LN10 = f128(0x3ffdbcb7b1526e50, 0xe32a6ab7555f5a68)
def f_log10(s): return dec(q(ln(s) * INV_LN10))
def f_log(x, b): return C.divide(f_ln(x), f_ln(b))
def split2(s):
    n = qd(s); m = q(exact(s) - n); return n, m
def f_exp(s):
    if D(s) == 0: return D(1)
    n, m = split2(s); r = qf(mpmath.exp, n); t = q(r*m); return dec(q(r + t))
LN2 = f128(0x3ffe62e42fefa39e, 0xf35793c7673007e6)
def f_exp2(s):
    if D(s) == 0: return D(1)
    n, m = split2(s); r = qf(lambda v: mpmath.power(2, v), n); t = q(q(r*LN2)*m); return dec(q(r + t))
def f_exp10(s):
    x = D(s)
    if x == 0: return D(1)
    k = int(abs(x).to_integral_value(rounding=ROUND_HALF_EVEN))
    fd = C.subtract(x, D(k)) if x > 0 else C.add(x, D(k))
    r = dec(qf(lambda v: mpmath.power(10, v), qd(fd)))
    return r.scaleb(k if x > 0 else -k)
def accurate_log(xa):
    l = mpmath.log(exact(xa))
    neg = l < 0
    a = abs(l) * mpf(10)**28
    whole = int(mpmath.floor(a))
    if whole < 2**65:
        t = C.subtract(xa, D(1))
        c2 = D("-0.5"); c3 = C.plus(D(1)/D(3)) ; c4 = D("-0.25")
        c3 = D("0.3333333333333333333333333333333333")
        tp = C.multiply(t, t); ts = C.multiply(c2, tp); tp = C.multiply(t, tp); ts = C.add(ts, C.multiply(c3, tp))
        tp = C.multiply(t, tp); ts = C.add(ts, C.multiply(c4, tp))
        lh = C.add(t, ts); ll = C.subtract(C.subtract(lh, t), ts)
        return lh, ll
    lo = int(mpmath.floor((a - whole) * mpf(10)**19))
    s = -1 if neg else 1
    return D(s*whole).scaleb(-28), D(s*lo).scaleb(-47)
def f_pow_raw(x, y):
    x, y = D(x), D(y)
    if y == 0 or x == 1: return D(1)
    is_int = y == y.to_integral_value(rounding=ROUND_HALF_EVEN)
    yi = y.to_integral_value(rounding=ROUND_HALF_EVEN)
    is_odd = is_int and yi.as_tuple().exponent == 0 and int(yi) % 2 == 1 if is_int else False
    if x == 0: return D(0)
    lh, ll = accurate_log(abs(x))
    l = C.multiply(y, lh)
    lh2 = C.fma(y, lh, -l)
    ll2 = C.fma(y, ll, lh2)
    res = f_exp(str(l))
    if res == 0: return D("0E-6176")
    res = C.fma(res, ll2, res)
    if is_odd and x < 0: res = -res
    return res
def norm(r): return C.add(r, D("0E-6176"))
def f_power(x, y):
    if D(x) == 10: return norm(f_exp10(y))
    if D(x) == 2: return norm(f_exp2(y))
    return norm(f_pow_raw(x, y))
def trig_exact(f, s): return dec(q(f(exact(s))))
def trig_quad(f, s): return dec(q(f(qd(s))))
PI_D = C.plus(D("3.14159265358979323846264338327950288419716939937510"))
def deg2rad(s): return C.multiply(D(s), C.divide(PI_D, D(180)))
def rad2deg(s): return C.multiply(D(s), C.divide(D(180), PI_D))
def acos_model(s):
    xd = qd(s)
    if abs(xd) <= f128(0x3ffe666666666666, 0x6666666666666666): return dec(q(mpmath.acos(xd)))
    if xd >= 1: return D("0E-6176")
    t = C.fma(D(s), D(s), D(-1)); td = qd(t)
    y = q(mpmath.asin(q(mpmath.sqrt(-td))))
    if xd < 0: y = q(f128(0x4000921fb54442d1, 0x8469898cc51701b8) - y)
    return dec(y)
PI_OV_2 = f128(0x3fff921fb54442d1, 0x8469898cc51701b8)
def trunc113(f):
    if f == 0: return mpf(0)
    man, e = f.man_exp; man = int(man)
    b = man.bit_length()
    if b > 113: man >>= (b - 113); e += (b - 113)
    return mpf(man) * mpf(2)**e
def sin_cos_intel(s, cos):
    x = D(s)
    t_ = x.as_tuple()
    e = t_.exponent
    if x == 0: e = -53 if cos else -99999
    if e < -35:
        if e == -99999: return x
        if e < -52: return C.subtract(D(1), D("1E-40")) if cos else C.fma(x, D("-1E-40"), x)
        xq = qd(s); return dec(q(mpmath.cos(xq) if cos else mpmath.sin(xq)))
    with mp.workprec(max(600, int(abs(x).adjusted()*3.4) + 600)):
        v = abs(mpf(s))
        t = v / (2*mpmath.pi)
        qq = 4 * (t - mpmath.floor(t))
        k = int(mpmath.floor(qq)); f = qq - k
        neg = x < 0
        if f >= 0.5:
            k = (k + 1) & 3; f = 1 - f; neg = not neg
        if x < 0: k = (-k) & 3
        fd = trunc113(f)
    if neg: fd = -fd
    xd = q(PI_OV_2 * fd)
    use_cos = (k % 2 == 0) == cos
    y = q(mpmath.cos(xd) if use_cos else mpmath.sin(xd))
    neg_r = (k in (1, 2)) if cos else (k >= 2)
    return dec(-y if neg_r else y)
def nudged(x, neg): return C.fma(D(x), D("-1E-40") if neg else D("1E-40"), D(x))
Q1EM40 = f128(0x3f7a16c262777579, 0xc58c46475896767b)
def exp_d(x): return f_exp(str(x))
def sinh_cosh(s, cosh):
    x = D(s); xd = qd(s)
    if abs(xd) <= Q1EM40: return C.add(D(1), D("1E-40")) if cosh else nudged(x, False)
    if abs(xd) <= 1: return dec(q(mpmath.cosh(xd) if cosh else mpmath.sinh(xd)))
    ax = abs(x); neg = x < 0
    if abs(xd) <= 64:
        e = exp_d(ax); i = C.divide(D(1), e)
        if cosh: a, b = D("0.5"), D("0.5")
        elif not neg: a, b = D("0.5"), D("-0.5")
        else: a, b = D("-0.5"), D("0.5")
        return C.fma(e, a, C.multiply(b, i))
    n = C.subtract(C.add(ax, SHIFTER), SHIFTER); m = C.subtract(ax, n)
    nd, md = qd(n), qd(m)
    big = nd > 11000
    if big: nd = q(nd - 11000)
    e1, e2 = q(mpmath.exp(nd)), q(mpmath.exp(md))
    rd = q(q(0.5*e1)*e2) if cosh else q((-0.5 if neg else 0.5) * q(e1*e2))
    r = dec(rd)
    return C.multiply(r, EXP11000) if big else r
def bits_dec(hi, lo):
    v = (hi << 64) | lo
    sign = v >> 127; exp = ((v >> 113) & 0x3fff) - 6176; coeff = v & ((1 << 113) - 1)
    return D(f"{'-' if sign else ''}{coeff}E{exp}")
SHIFTER = bits_dec(0x3040363bf3b1ceee, 0xbe00000000000000)
EXP11000 = bits_dec(0x5550558ada285f8b, 0xd43ede775707fd0a)
def tiny_or(s, f):
    x = D(s); xd = qd(s)
    if abs(xd) < Q1EM40: return C.multiply(x, D(1)) if x == 0 else nudged(x, True)
    return dec(q(f(xd)))
def asin_m(s):
    x = D(s); xd = qd(s)
    if abs(xd) < Q1EM40: return nudged(x, False)
    if abs(xd) <= f128(0x3ffe666666666666, 0x6666666666666666): return dec(q(mpmath.asin(xd)))
    td = qd(C.fma(x, x, D(-1)))
    y = q(mpmath.acos(q(mpmath.sqrt(-td))))
    return dec(-y if xd < 0 else y)
LN10Q = f128(0x400026bb1bbb5551, 0x582dd4adac5705a6)
def ln_twice_large(x):
    t = x.as_tuple(); coeff = int(''.join(map(str, t.digits))); e = t.exponent
    xq = qd(str(coeff)); sc = q(mpf(e) * LN10Q); l = q(mpmath.log(q(xq + xq)))
    return q(sc + l)
def asinh_m(s):
    x = D(s)
    if x.as_tuple().exponent > 34:
        r = ln_twice_large(x); return dec(-r if x < 0 else r)
    return dec(q(mpmath.asinh(qd(s))))
def acosh_m(s):
    x = D(s)
    if x < D("1.03125"):
        z = C.sqrt(C.fma(x, x, D(-1))); return dec(q(mpmath.asinh(qd(z))))
    if x.as_tuple().exponent > 34: return dec(ln_twice_large(x))
    return dec(q(mpmath.acosh(qd(s))))
def atanh_m(s):
    x = D(s)
    if x.as_tuple().exponent <= -51: return x
    ax = abs(x); omx = C.subtract(D(1), ax); t = C.divide(ax, omx); y = qd(C.add(t, t))
    r = q(q(mpmath.log1p(y)) * 0.5)
    return dec(-r if x < 0 else r)
DPI = bits_dec(0x2ffe9ae4795796a7, 0xbabe5564e6f39f8f); DPI2 = bits_dec(0x2ffe4d723cabcb53, 0xdd5f2ab27379cfc7)
def atan2_m(sy, sx):
    y, x = D(sy), D(sx)
    if y == 0 and x != 0: return (C.minus(DPI) if y.is_signed() else DPI) if x < 0 else D("0E-6176")
    z = C.divide(y, x); za = abs(z)
    if za > D("1E36"): return C.minus(DPI2) if y < 0 else DPI2
    if za < D("1E-36"): return ((C.minus(DPI) if y < 0 else DPI) if x < 0 else z)
    r = dec(q(mpmath.atan(qd(za))))
    if x < 0: r = C.subtract(DPI, r)
    return C.minus(r) if y < 0 else r


FUNCTIONS = {
    "ln": f_ln, "log10": f_log10, "exp": f_exp, "log": f_log, "pow": f_power,
    "sin": lambda s: sin_cos_intel(s, False), "cos": lambda s: sin_cos_intel(s, True),
    "asin": asin_m, "acos": acos_model, "atan": lambda s: tiny_or(s, mpmath.atan),
    "tanh": lambda s: tiny_or(s, mpmath.tanh), "sinh": lambda s: sinh_cosh(s, False),
    "cosh": lambda s: sinh_cosh(s, True), "asinh": asinh_m, "acosh": acosh_m, "atanh": atanh_m,
    "atan2": atan2_m, "degreesToRadians": deg2rad, "radiansToDegrees": rad2deg,
}

if __name__ == "__main__":
    if len(sys.argv) > 2:
        print(FUNCTIONS[sys.argv[1]](*sys.argv[2:]))
    else:
        for name, args in [("ln", ["2.5"]), ("log10", ["2.5"]), ("exp", ["1"]), ("log", ["2.5", "8"]),
                           ("pow", ["7", "1.5"]), ("sin", ["1"]), ("acos", ["0.8"]), ("sinh", ["2"]),
                           ("atan2", ["-1", "-1"])]:
            print(name, *args, FUNCTIONS[name](*args))
