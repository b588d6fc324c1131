"""Deterministically (re)create every image of the synthetic MedReaMM sample.

Usage (from the repository root):

    .venv/bin/python benchmarks/medreamm/sample/make_images.py

Every picture is a cartoon stand-in drawn with PIL + numpy from a fixed seed;
nothing is derived from real patient data or from published figures.  Each
image carries a small "SYNTHETIC SAMPLE" corner label.  Output goes to
``images/<pmid>/<n>.<ext>`` next to this script, overwriting existing files.
Byte-identical output is expected for a fixed Pillow/libjpeg/zlib version.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

HERE = Path(__file__).resolve().parent
OUT = HERE / "images"
LABEL = "SYNTHETIC SAMPLE"


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------
def grid(h: int, w: int):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    return yy, xx


def ellipse(h, w, cx, cy, rx, ry, angle=0.0):
    """Boolean mask of a (rotated) filled ellipse."""
    yy, xx = grid(h, w)
    a = math.radians(angle)
    dx, dy = xx - cx, yy - cy
    u = dx * math.cos(a) + dy * math.sin(a)
    v = -dx * math.sin(a) + dy * math.cos(a)
    return (u / rx) ** 2 + (v / ry) ** 2 <= 1.0


def ering(h, w, cx, cy, rx, ry, t, angle=0.0):
    return ellipse(h, w, cx, cy, rx, ry, angle) & ~ellipse(h, w, cx, cy, rx - t, ry - t, angle)


def blur(arr: np.ndarray, radius: float) -> np.ndarray:
    """Gaussian blur of a float array in [0, 1] via PIL."""
    img = Image.fromarray(np.clip(arr * 255, 0, 255).astype(np.uint8), "L")
    return np.asarray(img.filter(ImageFilter.GaussianBlur(radius)), dtype=np.float32) / 255.0


def to_l(arr: np.ndarray) -> Image.Image:
    return Image.fromarray(np.clip(arr * 255 + 0.5, 0, 255).astype(np.uint8), "L")


def to_rgb(arr: np.ndarray) -> Image.Image:
    return Image.fromarray(np.clip(arr * 255 + 0.5, 0, 255).astype(np.uint8), "RGB")


def label(img: Image.Image, corner: str = "bl") -> Image.Image:
    """Stamp the small 'SYNTHETIC SAMPLE' text label in a corner."""
    font = ImageFont.load_default()
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = d.textbbox((0, 0), LABEL, font=font)
    tw, th = x1 - x0, y1 - y0
    w, h = img.size
    pad = 3
    x = pad if corner[1] == "l" else w - tw - 2 * pad - 1
    y = pad if corner[0] == "t" else h - th - 2 * pad - 1
    mode = img.mode
    black = {"L": 0, "RGB": (0, 0, 0), "RGBA": (0, 0, 0, 255)}[mode]
    white = {"L": 255, "RGB": (255, 255, 255), "RGBA": (255, 255, 255, 255)}[mode]
    d.rectangle([x, y, x + tw + 2 * pad, y + th + 2 * pad], fill=black)
    d.text((x + pad - x0, y + pad - y0), LABEL, fill=white, font=font)
    return img


def noise(rng, shape, sigma):
    return rng.normal(0.0, sigma, shape).astype(np.float32)


# --------------------------------------------------------------------------
# CT
# --------------------------------------------------------------------------
def ct_abdomen_abscesses(seed: int) -> Image.Image:
    """Axial contrast CT of the upper abdomen: multiple splenic and a hepatic lesion."""
    rng = np.random.default_rng(seed)
    S = 320
    a = np.zeros((S, S), np.float32)
    body = ellipse(S, S, 160, 165, 135, 105)
    a[body] = 0.30  # subcutaneous fat
    a[ellipse(S, S, 160, 165, 124, 95)] = 0.48  # muscle / soft tissue
    a[ellipse(S, S, 160, 170, 112, 84)] = 0.40  # intra-abdominal fat
    liver = ellipse(S, S, 105, 150, 70, 62, -15)
    a[liver] = 0.60
    spleen = ellipse(S, S, 240, 170, 34, 48, 20)
    a[spleen] = 0.62
    a[ellipse(S, S, 170, 125, 38, 24)] = 0.52  # stomach wall
    a[ellipse(S, S, 170, 125, 30, 17)] = 0.02  # gastric air
    a[ellipse(S, S, 165, 205, 13, 13)] = 0.90  # vertebral body
    a[ellipse(S, S, 165, 205, 9, 9)] = 0.70
    a[ellipse(S, S, 165, 232, 6, 12)] = 0.88  # posterior elements
    a[ellipse(S, S, 160, 183, 9, 9)] = 0.85  # aorta (contrast)
    a[ellipse(S, S, 135, 180, 10, 8)] = 0.66  # IVC
    a[ellipse(S, S, 115, 215, 20, 13, 30)] = 0.72  # right kidney upper pole
    a[ellipse(S, S, 220, 220, 20, 13, -30)] = 0.72  # left kidney
    a[ering(S, S, 160, 165, 135, 105, 4)] = 0.55  # skin
    # small rim-enhancing splenic lesions
    for cx, cy, r in [(232, 150, 8), (250, 175, 10), (236, 195, 7), (255, 152, 5), (225, 172, 6)]:
        a[ellipse(S, S, cx, cy, r + 2, r + 2)] = 0.70
        a[ellipse(S, S, cx, cy, r, r)] = 0.30
    # multiloculated ("honeycomb") hepatic lesion
    a[ellipse(S, S, 80, 140, 26, 22)] = 0.66
    a[ellipse(S, S, 80, 140, 23, 19)] = 0.34
    for x0 in (66, 80, 94):
        a[:, x0 - 1:x0 + 1][ellipse(S, S, 80, 140, 23, 19)[:, x0 - 1:x0 + 1]] = 0.62
    a[132:134, 58:103][ellipse(S, S, 80, 140, 23, 19)[132:134, 58:103]] = 0.62
    a = blur(a, 1.2) + noise(rng, a.shape, 0.035) * body
    a[S - 18:S - 14, 20:300] = 0.35  # table
    return label(to_l(a))


def ct_chest_cavity(seed: int) -> Image.Image:
    """Axial chest CT, lung window: thick-walled right upper-lobe cavity, nodules."""
    rng = np.random.default_rng(seed)
    S = 320
    a = np.zeros((S, S), np.float32)
    body = ellipse(S, S, 160, 160, 140, 100)
    a[body] = 0.72
    lung_r = ellipse(S, S, 100, 150, 55, 78)  # image-left = patient's right
    lung_l = ellipse(S, S, 220, 150, 52, 76)
    a[lung_r | lung_l] = 0.06
    a[ellipse(S, S, 160, 115, 24, 30)] = 0.80  # mediastinum (aortic arch level)
    a[ellipse(S, S, 160, 222, 14, 14)] = 0.98  # vertebra
    a[ellipse(S, S, 160, 132, 7, 7)] = 0.0  # trachea
    # vessels in lungs
    for _ in range(70):
        cx, cy = rng.uniform(50, 270), rng.uniform(80, 225)
        if (lung_r | lung_l)[int(cy), int(cx)]:
            a[ellipse(S, S, cx, cy, 1.6, 1.6)] = 0.55
    # cavity in apical segment of right upper lobe
    a[ellipse(S, S, 92, 112, 27, 23, 20)] = 0.78
    a[ellipse(S, S, 94, 110, 18, 14, 20)] = 0.0
    a[ellipse(S, S, 70, 128, 16, 12)] = np.maximum(a[ellipse(S, S, 70, 128, 16, 12)], 0.45)
    # centrilobular "tree-in-bud" nodules
    for _ in range(26):
        cx, cy = rng.normal(105, 18), rng.normal(165, 22)
        if lung_r[int(np.clip(cy, 0, S - 1)), int(np.clip(cx, 0, S - 1))]:
            a[ellipse(S, S, cx, cy, 2.2, 2.2)] = 0.62
    a = blur(a, 0.9) + noise(rng, a.shape, 0.03) * body
    return label(to_l(a))


def ct_head_mass(seed: int) -> Image.Image:
    """Non-contrast head CT: left temporoparietal hypodense mass with oedema."""
    rng = np.random.default_rng(seed)
    S = 300
    a = np.zeros((S, S), np.float32)
    a[ellipse(S, S, 150, 150, 112, 135)] = 0.98  # skull
    brain = ellipse(S, S, 150, 150, 102, 125)
    a[brain] = 0.52
    a[ellipse(S, S, 132, 140, 8, 30, -8)] = 0.22  # right lateral ventricle
    a[ellipse(S, S, 165, 145, 6, 22, 8)] = 0.24  # left ventricle, compressed
    a[ellipse(S, S, 150, 60, 3, 40)] = 0.58  # falx
    # mass + oedema in left temporoparietal region (image right)
    oed = ellipse(S, S, 205, 175, 42, 55, 20)
    a[oed & brain] = 0.40
    a[ellipse(S, S, 210, 180, 24, 28)] = 0.46
    a[ellipse(S, S, 212, 182, 12, 14)] = 0.34
    a = blur(a, 1.3) + noise(rng, a.shape, 0.03) * ellipse(S, S, 150, 150, 116, 140)
    return label(to_l(a))


def ctpa_coronal_scimitar(seed: int) -> Image.Image:
    """Coronal MIP of CT pulmonary angiography: small right lung, curved vein to IVC."""
    rng = np.random.default_rng(seed)
    S = 320
    a = np.zeros((S, S), np.float32)
    body = ellipse(S, S, 160, 170, 148, 150)
    a[body] = 0.38
    lung_r = ellipse(S, S, 95, 150, 50, 105)  # small right lung (image left)
    lung_l = ellipse(S, S, 225, 155, 70, 118)
    a[lung_r | lung_l] = 0.04
    a[ellipse(S, S, 132, 185, 55, 48)] = 0.62  # heart shifted to the right
    a[ellipse(S, S, 160, 95, 9, 40)] = 0.78  # SVC/aorta region
    a[ellipse(S, S, 120, 290, 14, 28)] = 0.70  # IVC/liver confluence
    img = to_l(a)
    d = ImageDraw.Draw(img)
    # pulmonary arterial / venous branches (bright on MIP)
    for (x0, y0), lung in [((150, 150), lung_r), ((175, 150), lung_l)]:
        for _ in range(14):
            ang = rng.uniform(-math.pi, math.pi)
            ln = rng.uniform(30, 80)
            x1, y1 = x0 + ln * math.cos(ang), y0 + ln * math.sin(ang)
            if lung[int(np.clip(y1, 0, S - 1)), int(np.clip(x1, 0, S - 1))]:
                d.line([(x0, y0), (x1, y1)], fill=200, width=2)
    # curved descending anomalous vein
    pts = [(78 + 22 * math.sin(t / 9.0) + t * 0.25, 90 + t * 1.9) for t in range(0, 100)]
    d.line(pts, fill=235, width=4)
    d.line([pts[-1], (118, 282)], fill=235, width=5)
    a = np.asarray(img, np.float32) / 255.0
    a = blur(a, 1.0) + noise(rng, a.shape, 0.03) * body
    return label(to_l(a))


# --------------------------------------------------------------------------
# X-ray
# --------------------------------------------------------------------------
def _chest_base(rng, S, lung_r_rx=58, heart_cx=168, shift=0):
    a = np.zeros((S, S), np.float32) + 0.05
    body = ellipse(S, S, S / 2, S / 2 + 20, S * 0.46, S * 0.55)
    a[body] = 0.55
    lung_r = ellipse(S, S, 108 + shift, 165, lung_r_rx, 105)
    lung_l = ellipse(S, S, 215, 165, 60, 110)
    a[lung_r | lung_l] = 0.13
    a[ellipse(S, S, heart_cx, 200, 52, 48)] = 0.70  # heart
    a[ellipse(S, S, 160, 110, 18, 60)] = 0.68  # mediastinum
    a[ellipse(S, S, 160, 90, 5, 45)] = 0.30  # trachea air column
    a[S - 40:, :][ellipse(S, S, S / 2, S / 2 + 20, S * 0.46, S * 0.55)[S - 40:, :]] = 0.66
    img = to_l(a)
    d = ImageDraw.Draw(img)
    for i in range(9):  # ribs
        y = 75 + i * 23
        d.arc([40 + shift, y - 25, 160, y + 40], 190, 340, fill=115, width=3)
        d.arc([160, y - 25, 280, y + 40], 200, 350, fill=115, width=3)
    d.line([(70, 70), (145, 85)], fill=185, width=5)  # clavicles
    d.line([(250, 70), (175, 85)], fill=185, width=5)
    d.line([(160, 40), (160, 300)], fill=165, width=10)  # spine shadow
    return np.asarray(img, np.float32) / 255.0, lung_r, lung_l


def xray_chest_cavity(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    S = 320
    a, lung_r, lung_l = _chest_base(rng, S)
    m = ellipse(S, S, 100, 100, 32, 26)
    a[m] = np.maximum(a[m], 0.55)  # consolidation
    a[ering(S, S, 98, 98, 17, 14, 4)] = 0.72  # thick wall
    a[ellipse(S, S, 98, 98, 13, 10)] = 0.20  # lucent centre
    for _ in range(18):  # nodular opacities left mid-zone
        cx, cy = rng.normal(220, 16), rng.normal(160, 18)
        a[ellipse(S, S, cx, cy, 3, 3)] = np.maximum(a[ellipse(S, S, cx, cy, 3, 3)], 0.45)
    a = blur(a, 1.6) + noise(rng, a.shape, 0.025)
    return label(to_l(a))


def xray_chest_scimitar(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    S = 320
    a, lung_r, lung_l = _chest_base(rng, S, lung_r_rx=44, heart_cx=140, shift=18)
    img = to_l(a)
    d = ImageDraw.Draw(img)
    pts = [(112 + 10 * math.sin(t / 14.0) + t * 0.18, 120 + t * 1.35) for t in range(0, 110)]
    for k, p in enumerate(pts[1:], 1):
        d.line([pts[k - 1], p], fill=190, width=3 + k // 30)  # widening towards diaphragm
    a = np.asarray(img, np.float32) / 255.0
    a = blur(a, 1.5) + noise(rng, a.shape, 0.025)
    return label(to_l(a))


def xray_pelvis_sacroiliitis(seed: int) -> Image.Image:
    """AP pelvis radiograph (saved as greyscale 'L' PNG)."""
    rng = np.random.default_rng(seed)
    S = 256
    a = np.zeros((S, S), np.float32) + 0.12
    a[ellipse(S, S, 128, 140, 125, 110)] = 0.35  # soft tissue
    for cx, ang in ((70, -25), (186, 25)):  # iliac wings
        a[ellipse(S, S, cx, 95, 55, 42, ang)] = 0.62
    a[ellipse(S, S, 128, 105, 30, 48)] = 0.58  # sacrum
    for x in (98, 158):  # sacroiliac joints: widened, sclerotic margins, erosions
        a[55:150, x - 3:x + 3] = 0.40
        a[55:150, x - 7:x - 3] = 0.85
        a[55:150, x + 3:x + 7] = 0.85
        for y in range(65, 145, 14):
            a[ellipse(S, S, x, y, 3, 2.5)] = 0.42
    for cx in (62, 194):  # femoral heads + necks
        a[ellipse(S, S, cx, 190, 22, 22)] = 0.70
        a[ellipse(S, S, cx + (20 if cx < 128 else -20), 215, 12, 30, 30 if cx < 128 else -30)] = 0.66
    a[ering(S, S, 128, 185, 58, 38, 8)] = 0.64  # pelvic ring / pubic rami
    a = blur(a, 1.2) + noise(rng, a.shape, 0.006)
    return label(to_l(a))


def xray_lumbar_lateral(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    W, H = 256, 320
    a = np.zeros((H, W), np.float32) + 0.14
    a[:, 40:220] = 0.33
    img = to_l(a)
    d = ImageDraw.Draw(img)
    for i in range(5):
        y = 28 + i * 56
        d.rectangle([88, y, 156, y + 40], fill=165, outline=205, width=3)  # squared bodies
        d.polygon([(156, y + 8), (200, y + 2), (205, y + 30), (156, y + 32)], fill=140)  # posterior elements
        # bright corners (sclerosis) and thin marginal bridging
        for cx, cy in ((90, y + 2), (154, y + 2), (90, y + 38), (154, y + 38)):
            d.ellipse([cx - 4, cy - 4, cx + 4, cy + 4], fill=215)
        if i < 2:
            d.line([(88, y + 40), (86, y + 56)], fill=190, width=2)
    a = np.asarray(img, np.float32) / 255.0
    a = blur(a, 1.2) + noise(rng, a.shape, 0.02)
    return label(to_l(a))


# --------------------------------------------------------------------------
# MRI
# --------------------------------------------------------------------------
def _brain(S, rng, wm=0.55, gm=0.42, csf=0.12, scalp=0.75, skull=0.05):
    yy, xx = grid(S, S)
    cx, cy, rx, ry = S / 2, S / 2, S * 0.36, S * 0.44
    rho = np.sqrt(((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2)
    th = np.arctan2(yy - cy, xx - cx)
    gyr = 0.035 * np.sin(22 * th + 1.3) + 0.015 * np.sin(41 * th)
    a = np.zeros((S, S), np.float32)
    a[rho < 1.10] = scalp
    a[rho < 1.03] = skull
    a[rho < 0.97] = csf
    a[rho < 0.94] = gm
    a[rho < 0.82 + gyr] = wm
    vent_l = ellipse(S, S, cx - 14, cy - 8, 7, 34, -10)
    vent_r = ellipse(S, S, cx + 14, cy - 8, 7, 34, 10)
    a[vent_l | vent_r] = csf
    # deep grey nuclei
    a[ellipse(S, S, cx - 30, cy + 5, 12, 22, 10)] = gm
    a[ellipse(S, S, cx + 30, cy + 5, 12, 22, -10)] = gm
    a[ellipse(S, S, cx - 18, cy - 26, 8, 10)] = gm  # caudate heads
    a[ellipse(S, S, cx + 18, cy - 26, 8, 10)] = gm
    return a, rho, th, (rho < 1.10)


def mri_t1c_ring(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    S = 300
    a, rho, th, head = _brain(S, rng, wm=0.50, gm=0.40, csf=0.10, scalp=0.80)
    cx, cy = 205, 175
    a[ellipse(S, S, cx, cy, 32, 36)] = 0.95  # thick irregular enhancing rim
    a[ellipse(S, S, cx + 3, cy + 2, 22, 25)] = 0.15  # necrotic centre
    a[ellipse(S, S, cx - 12, cy - 28, 6, 4)] = 0.90
    a[ellipse(S, S, 165, 215, 14, 6, 10)] = 0.80  # extension towards splenium
    a = blur(a, 1.1) + noise(rng, a.shape, 0.03) * head
    return label(to_l(a))


def _jet(v):
    v = np.clip(v, 0, 1)
    r = np.clip(1.5 - np.abs(4 * v - 3), 0, 1)
    g = np.clip(1.5 - np.abs(4 * v - 2), 0, 1)
    b = np.clip(1.5 - np.abs(4 * v - 1), 0, 1)
    return np.stack([r, g, b], -1)


def mri_rcbv_map(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    S = 300
    a, rho, th, head = _brain(S, rng, wm=0.22, gm=0.38, csf=0.02, scalp=0.0, skull=0.0)
    a[ellipse(S, S, 205, 175, 32, 36)] = 0.95
    a[ellipse(S, S, 208, 177, 22, 25)] = 0.05
    a = blur(a, 2.0) + noise(rng, a.shape, 0.04) * (rho < 0.97)
    rgb = _jet(a) * (rho < 0.97)[..., None]
    return label(to_rgb(rgb))


def mri_dwi_ribbon(seed: int, adc: bool = False) -> Image.Image:
    rng = np.random.default_rng(seed)
    S = 300
    a, rho, th, head = _brain(S, rng, wm=0.35, gm=0.42, csf=0.05, scalp=0.10, skull=0.02)
    gyr = 0.035 * np.sin(22 * th + 1.3) + 0.015 * np.sin(41 * th)
    cortex = (rho < 0.94) & (rho > 0.82 + gyr)
    # restricted diffusion: left frontal/parietal arc (image right, upper) + striatum
    sel = cortex & (((th > -1.9) & (th < -0.2)) | ((th > -2.6) & (th < -2.2)))
    cx = cy = S / 2
    striatum = (ellipse(S, S, cx - 30, cy + 5, 12, 22, 10) | ellipse(S, S, cx + 30, cy + 5, 12, 22, -10)
                | ellipse(S, S, cx - 18, cy - 26, 8, 10) | ellipse(S, S, cx + 18, cy - 26, 8, 10))
    if adc:
        a, rho, th, head = _brain(S, rng, wm=0.42, gm=0.50, csf=0.95, scalp=0.05, skull=0.02)
        a[sel] = 0.28
        a[striatum] = 0.30
    else:
        a[sel] = 0.92
        a[striatum] = 0.80
    a = blur(a, 1.0) + noise(rng, a.shape, 0.045) * head
    return label(to_l(a))


def mri_cardiac_lge(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    S = 300
    a = np.zeros((S, S), np.float32) + 0.03
    a[ellipse(S, S, 150, 155, 140, 120)] = 0.32  # chest
    a[ellipse(S, S, 150, 150, 85, 55, -35)] = 0.10  # myocardium, nulled
    blood = ellipse(S, S, 150, 150, 70, 38, -35)
    a[blood] = 0.62  # LV cavity blood pool
    # transmural enhancement of anterior wall + apex (upper-right arc)
    yy, xx = grid(S, S)
    th = np.arctan2(yy - 150, xx - 150)
    myo = ellipse(S, S, 150, 150, 85, 55, -35) & ~blood
    a[myo & (th > -1.6) & (th < 0.3)] = 0.95
    a[ellipse(S, S, 205, 112, 16, 10, -35)] = 0.08  # dark non-enhancing apical mass
    a = blur(a, 1.4) + noise(rng, a.shape, 0.04)
    return label(to_l(a))


def mri_si_stir(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    S = 300
    a = np.zeros((S, S), np.float32) + 0.02
    a[ellipse(S, S, 150, 160, 145, 115)] = 0.22
    a[ellipse(S, S, 150, 150, 40, 85)] = 0.16  # sacrum, fat-suppressed marrow
    for cx, ang in ((70, -20), (230, 20)):
        a[ellipse(S, S, cx, 140, 62, 80, ang)] = 0.14  # ilia
    for x, s in ((112, -1), (188, 1)):
        a[70:230, x - 2:x + 2] = 0.55  # joint fluid line
        a[ellipse(S, S, x - 12 * s, 125, 13, 28)] = 0.80  # periarticular marrow oedema
        a[ellipse(S, S, x + 10 * s, 175, 11, 24)] = 0.72
    a = blur(a, 1.5) + noise(rng, a.shape, 0.03)
    return label(to_l(a))


# --------------------------------------------------------------------------
# Ultrasound (echocardiogram, apical four-chamber)
# --------------------------------------------------------------------------
def us_echo_a4c(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    W, H = 320, 280
    yy, xx = grid(H, W)
    ax, ay = W / 2, 12
    r = np.sqrt((xx - ax) ** 2 + (yy - ay) ** 2)
    th = np.degrees(np.arctan2(xx - ax, yy - ay))
    fan = (r < 255) & (np.abs(th) < 40)
    speck = rng.gamma(1.6, 0.18, (H, W)).astype(np.float32)
    speck = blur(np.clip(speck, 0, 1), 0.7)
    a = 0.55 * speck
    # chambers (dark, blood) – apex at top
    for cx, cy, rx, ry in ((140, 110, 28, 70), (185, 115, 24, 60), (142, 215, 28, 32), (185, 212, 24, 30)):
        a[ellipse(H, W, cx, cy, rx, ry)] *= 0.12
    a[ellipse(H, W, 162, 110, 4, 80)] = 0.75 * speck[ellipse(H, W, 162, 110, 4, 80)] + 0.25  # septum
    a[ellipse(H, W, 144, 52, 10, 7)] = 0.55 + 0.2 * speck[ellipse(H, W, 144, 52, 10, 7)]  # apical echodensity
    a = a * fan * np.clip(1.25 - r / 300, 0.3, 1.0)
    img = to_l(a)
    d = ImageDraw.Draw(img)
    for k in range(1, 6):  # depth markers
        d.point((W / 2 + 110, 12 + 45 * k), fill=200)
        d.line([(W / 2 + 106, 12 + 45 * k), (W / 2 + 112, 12 + 45 * k)], fill=180)
    return label(img, "tl")


# --------------------------------------------------------------------------
# Histopathology (H&E / WSI crop)
# --------------------------------------------------------------------------
PINK = np.array([0.94, 0.78, 0.85], np.float32)
EOSIN = np.array([0.86, 0.52, 0.68], np.float32)
HEMA = np.array([0.33, 0.18, 0.52], np.float32)


def _he_canvas(rng, H, W, base=PINK, tex=0.06):
    t = blur(rng.random((H, W)).astype(np.float32), 2.5)
    img = base[None, None, :] * (1 - tex * (t[..., None] - 0.5) * 4)
    return np.clip(img, 0, 1)


def _nuclei(img, rng, pts, rx=3.0, ry=2.2, color=HEMA, jitter=0.08):
    H, W, _ = img.shape
    for x, y in pts:
        ang = rng.uniform(0, 180)
        r1, r2 = rx * rng.uniform(0.8, 1.2), ry * rng.uniform(0.8, 1.2)
        x0, x1 = int(max(0, x - r1 - 2)), int(min(W, x + r1 + 3))
        y0, y1 = int(max(0, y - r1 - 2)), int(min(H, y + r1 + 3))
        if x1 <= x0 or y1 <= y0:
            continue
        m = ellipse(y1 - y0, x1 - x0, x - x0, y - y0, r1, r2, ang)
        c = np.clip(color + rng.normal(0, jitter, 3), 0, 1)
        img[y0:y1, x0:x1][m] = c
    return img


def wsi_duodenum_flat(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    H, W = 300, 320
    img = _he_canvas(rng, H, W)
    yy, xx = grid(H, W)
    surface = 60 + 4 * np.sin(xx / 17.0)  # flat surface, no villi
    img[yy < surface] = [0.98, 0.97, 0.98]
    lam = (yy >= surface) & (yy < 260)
    img[lam] = img[lam] * 0.97 + EOSIN * 0.03
    img = _nuclei(img, rng, [(x, 62 + 4 * math.sin(x / 17.0) + 3) for x in range(4, W, 6)], 2.6, 1.6)
    # elongated hyperplastic crypts
    for cx in range(22, W, 38):
        cx2 = cx + rng.uniform(-5, 5)
        m = ellipse(H, W, cx2, 160, 9, 75)
        inner = ellipse(H, W, cx2, 160, 4, 70)
        img[m & ~inner] = [0.80, 0.55, 0.75]
        img[inner] = [0.97, 0.93, 0.96]
        pts = [(cx2 + s * 7, y) for y in range(90, 232, 6) for s in (-1, 1)]
        img = _nuclei(img, rng, pts, 2.6, 1.8)
    # intraepithelial + lamina propria lymphocytes (small, dark, round)
    lp = [(rng.uniform(0, W), rng.uniform(70, 255)) for _ in range(650)]
    img = _nuclei(img, rng, lp, 1.6, 1.5, color=np.array([0.22, 0.10, 0.38], np.float32))
    img[yy >= 260] = np.array([0.90, 0.70, 0.80]) * 0.95  # muscularis mucosae band
    return label(to_rgb(img))


def wsi_granuloma(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    S = 320
    img = _he_canvas(rng, S, S)
    yy, xx = grid(S, S)
    cx, cy = 165, 155
    r = np.sqrt(((xx - cx) / 1.15) ** 2 + (yy - cy) ** 2)
    necro = r < 55
    t = blur(rng.random((S, S)).astype(np.float32), 1.2)
    img[necro] = (EOSIN * 0.85 + 0.12 + 0.06 * (t[..., None] - 0.5))[necro]  # granular caseum
    debris = [(cx + rng.normal(0, 30), cy + rng.normal(0, 25)) for _ in range(60)]
    img = _nuclei(img, rng, debris, 1.0, 0.8, color=np.array([0.50, 0.35, 0.60], np.float32))
    # palisading epithelioid histiocytes (elongated, pale nuclei)
    epi = []
    for _ in range(260):
        ang, rr = rng.uniform(0, 2 * math.pi), rng.uniform(60, 92)
        epi.append((cx + 1.15 * rr * math.cos(ang), cy + rr * math.sin(ang)))
    img = _nuclei(img, rng, epi, 4.5, 1.8, color=np.array([0.45, 0.32, 0.62], np.float32))
    # Langhans giant cell: horseshoe of nuclei at periphery of a pink cytoplasm
    gx, gy = 262, 110
    img[ellipse(S, S, gx, gy, 22, 17)] = EOSIN * 0.9 + 0.08
    img = _nuclei(img, rng, [(gx + 17 * math.cos(a), gy + 12 * math.sin(a)) for a in np.linspace(0.3, 2.9, 12)],
                  2.4, 2.0)
    # lymphocyte cuff
    lym = []
    for _ in range(700):
        ang, rr = rng.uniform(0, 2 * math.pi), rng.uniform(95, 200)
        lym.append((cx + 1.15 * rr * math.cos(ang), cy + rr * math.sin(ang)))
    img = _nuclei(img, rng, lym, 1.7, 1.6, color=np.array([0.20, 0.09, 0.36], np.float32))
    return label(to_rgb(img))


def wsi_melanoma_low(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    H, W = 280, 340
    img = _he_canvas(rng, H, W)
    yy, xx = grid(H, W)
    epi_top = 40 + 6 * np.sin(xx / 23.0)
    img[yy < epi_top] = [0.98, 0.97, 0.98]
    epi = (yy >= epi_top) & (yy < epi_top + 28)
    img[epi] = [0.80, 0.55, 0.72]
    img[(yy >= epi_top - 5) & (yy < epi_top)] = [0.93, 0.70, 0.82]  # keratin
    # junctional nests + pagetoid cells
    nests = [(x, 40 + 6 * math.sin(x / 23.0) + 26 + rng.normal(0, 3)) for x in range(20, W, 32)]
    for nx, ny in nests:
        img = _nuclei(img, rng, [(nx + rng.normal(0, 6), ny + rng.normal(0, 4)) for _ in range(14)], 3.2, 2.6)
    img = _nuclei(img, rng, [(rng.uniform(0, W), rng.uniform(45, 62)) for _ in range(25)], 3.5, 3.0)
    # dermal tumour nodule with pigment
    nod = ellipse(H, W, 200, 175, 95, 70)
    img[nod] = img[nod] * 0.9 + np.array([0.80, 0.62, 0.78]) * 0.1
    img = _nuclei(img, rng, [(200 + rng.normal(0, 45), 175 + rng.normal(0, 32)) for _ in range(520)], 3.4, 2.7)
    img = _nuclei(img, rng, [(200 + rng.normal(0, 50), 175 + rng.normal(0, 35)) for _ in range(70)], 2.2, 2.0,
                  color=np.array([0.45, 0.30, 0.15], np.float32))  # melanin
    # ulcerated surface over the nodule: epidermis lost, fibrinous exudate
    ulc = (yy < epi_top + 30) & (yy > epi_top - 6) & ((xx - 205) ** 2 / 30.0 ** 2 + (yy - epi_top) ** 2 / 20.0 ** 2 < 1)
    img[ulc] = [0.93, 0.80, 0.86]
    return label(to_rgb(img))


def wsi_node_high(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    S = 300
    img = _he_canvas(rng, S, S, base=np.array([0.90, 0.70, 0.80], np.float32))
    pts = [(x + rng.normal(0, 4), y + rng.normal(0, 4)) for y in range(10, S, 26) for x in range(10, S, 26)]
    for x, y in pts:
        img[ellipse(S, S, x, y, 12, 10, rng.uniform(0, 180))] = EOSIN * 0.95 + rng.normal(0, 0.02)
    img = _nuclei(img, rng, pts, 7.5, 5.5, color=np.array([0.38, 0.22, 0.55], np.float32), jitter=0.06)
    img = _nuclei(img, rng, [(x + rng.normal(0, 1.5), y + rng.normal(0, 1.5)) for x, y in pts], 1.8, 1.8,
                  color=np.array([0.62, 0.12, 0.30], np.float32))  # prominent nucleoli
    img = _nuclei(img, rng, [(rng.uniform(0, S), rng.uniform(0, S)) for _ in range(40)], 2.5, 2.0,
                  color=np.array([0.48, 0.33, 0.16], np.float32))  # pigment granules
    return label(to_rgb(img))


# --------------------------------------------------------------------------
# Endoscopy, clinical photographs, dermoscopy
# --------------------------------------------------------------------------
def endoscopy_duodenum(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    S = 300
    yy, xx = grid(S, S)
    r = np.sqrt((xx - 150) ** 2 + (yy - 150) ** 2)
    field = (r < 140) & (np.abs(xx - 150) + np.abs(yy - 150) < 185)
    base = np.array([0.86, 0.45, 0.36], np.float32)
    t = blur(rng.random((S, S)).astype(np.float32), 3.0)
    img = base[None, None] * (0.9 + 0.3 * (t[..., None] - 0.5))
    lumen = np.exp(-(((xx - 165) ** 2 + (yy - 140) ** 2) / (2 * 45.0 ** 2)))
    img *= (1 - 0.75 * lumen)[..., None]  # dark lumen
    ang = np.arctan2(yy - 140, xx - 165)
    rr = np.sqrt((xx - 165) ** 2 + (yy - 140) ** 2)
    for k, rad in enumerate((55, 80, 105, 128)):  # circular folds with scalloped (notched) edges
        edge = rad + 3 * np.sign(np.sin(ang * 24 + k))
        fold = np.abs(rr - edge) < 5
        img[fold] *= 1.15
        img[np.abs(rr - edge - 6) < 2] *= 0.75
    # mosaic pattern + visible submucosal vessels
    cells = blur((rng.random((S // 6, S // 6)) > 0.5).astype(np.float32), 0.4)
    mos = np.asarray(Image.fromarray((cells * 255).astype(np.uint8)).resize((S, S), Image.NEAREST), np.float32) / 255
    img *= (0.95 + 0.06 * mos)[..., None]
    pil = to_rgb(np.clip(img, 0, 1))
    d = ImageDraw.Draw(pil)
    for _ in range(6):
        x, y = rng.uniform(40, 260), rng.uniform(40, 260)
        pts = [(x, y)]
        for _ in range(6):
            x, y = x + rng.normal(0, 9), y + rng.normal(0, 9)
            pts.append((x, y))
        d.line(pts, fill=(150, 40, 60), width=1)
    for _ in range(5):  # specular highlights
        x, y = rng.uniform(60, 240), rng.uniform(60, 240)
        d.ellipse([x - 3, y - 2, x + 3, y + 2], fill=(255, 250, 245))
    arr = np.asarray(pil, np.float32) / 255
    vign = np.clip(1.1 - (r / 150) ** 2 * 0.5, 0, 1)
    arr = arr * vign[..., None] * field[..., None]
    return label(to_rgb(arr))


def _skin(rng, H, W, tone=(0.90, 0.72, 0.62)):
    yy, xx = grid(H, W)
    t = blur(rng.random((H, W)).astype(np.float32), 4.0)
    light = 0.85 + 0.25 * np.exp(-(((xx - W * 0.4) ** 2 + (yy - H * 0.35) ** 2) / (2 * (W * 0.6) ** 2)))
    img = np.array(tone, np.float32)[None, None] * (light * (0.96 + 0.12 * (t - 0.5)))[..., None]
    return np.clip(img, 0, 1), yy, xx


def photo_forearm_vesicles(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    H, W = 260, 340
    img, yy, xx = _skin(rng, H, W)
    img[(yy < 30 + 0.1 * xx) | (yy > 225 + 0.05 * xx)] = [0.25, 0.30, 0.38]  # drape background
    pil = to_rgb(img)
    d = ImageDraw.Draw(pil)
    for gx, gy in ((120, 110), (200, 140), (250, 100), (160, 170)):  # grouped papulovesicles
        for _ in range(int(rng.integers(6, 11))):
            x, y = gx + rng.normal(0, 11), gy + rng.normal(0, 9)
            rad = rng.uniform(2, 4.5)
            d.ellipse([x - rad - 2, y - rad - 2, x + rad + 2, y + rad + 2], fill=(214, 120, 115))
            d.ellipse([x - rad, y - rad, x + rad, y + rad], fill=(236, 205, 190))
        for _ in range(3):  # excoriations / crusts
            x, y = gx + rng.normal(0, 14), gy + rng.normal(0, 10)
            d.line([(x, y), (x + rng.uniform(5, 12), y + rng.uniform(-3, 3))], fill=(140, 50, 40), width=2)
    arr = blur_rgb(pil, 0.6)
    return label(arr)


def blur_rgb(img: Image.Image, r: float) -> Image.Image:
    return img.filter(ImageFilter.GaussianBlur(r))


def _irregular_blob(rng, H, W, cx, cy, R, k=7, amp=0.25):
    yy, xx = grid(H, W)
    th = np.arctan2(yy - cy, xx - cx)
    rad = np.full_like(th, R)
    for j in range(2, k):
        rad += R * amp / j * np.sin(j * th + rng.uniform(0, 2 * math.pi))
    return np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2) < rad, th


def photo_back_pigmented(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    H, W = 280, 320
    img, yy, xx = _skin(rng, H, W, tone=(0.93, 0.78, 0.70))
    les, th = _irregular_blob(rng, H, W, 165, 135, 48, k=9, amp=0.35)
    t = blur(rng.random((H, W)).astype(np.float32), 3.0)
    tan = np.array([0.62, 0.42, 0.30]); dark = np.array([0.18, 0.12, 0.14]); blue = np.array([0.25, 0.25, 0.35])
    mix = np.where(t[..., None] > 0.55, dark, np.where(t[..., None] > 0.45, blue, tan))
    img[les] = mix[les]
    img[ellipse(H, W, 170, 178, 11, 10)] = [0.45, 0.12, 0.14]  # eroded nodule
    img[ellipse(H, W, 172, 176, 5, 4)] = [0.70, 0.30, 0.25]
    for _ in range(12):  # a few benign naevi
        x, y = rng.uniform(10, W - 10), rng.uniform(10, H - 10)
        if not les[int(y), int(x)]:
            img[ellipse(H, W, x, y, 2.2, 2.2)] = [0.50, 0.34, 0.26]
    pil = to_rgb(img).filter(ImageFilter.GaussianBlur(0.8))
    d = ImageDraw.Draw(pil)
    d.line([(20, H - 30), (80, H - 30)], fill=(30, 30, 30), width=2)  # ruler-like scale bar
    for k in range(7):
        d.line([(20 + k * 10, H - 30), (20 + k * 10, H - 36)], fill=(30, 30, 30), width=1)
    return label(pil, "tr")


def dermoscopy_pigmented(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    S = 300
    yy, xx = grid(S, S)
    field = np.sqrt((xx - 150) ** 2 + (yy - 150) ** 2) < 145
    img, _, _ = _skin(rng, S, S, tone=(0.92, 0.76, 0.66))
    les, th = _irregular_blob(rng, S, S, 150, 150, 95, k=8, amp=0.3)
    # atypical network: thick irregular lines
    net = (np.sin(xx / 5.0 + 2 * np.sin(yy / 13.0)) > 0.55) | (np.sin(yy / 5.5 + 2 * np.sin(xx / 11.0)) > 0.55)
    img[les] = [0.60, 0.40, 0.28]
    img[les & net] = [0.32, 0.20, 0.15]
    veil = ellipse(S, S, 135, 165, 40, 32, 25)
    img[les & veil] = [0.55, 0.60, 0.70]  # blue-white veil
    for _ in range(45):  # irregular dots / globules
        x, y = 150 + rng.normal(0, 55), 150 + rng.normal(0, 55)
        if les[int(np.clip(y, 0, S - 1)), int(np.clip(x, 0, S - 1))]:
            img[ellipse(S, S, x, y, rng.uniform(1.5, 3.5), rng.uniform(1.5, 3.5))] = [0.15, 0.10, 0.12]
    pil = to_rgb(img * field[..., None])
    d = ImageDraw.Draw(pil)
    for k in range(10):  # peripheral streaks
        a = rng.uniform(0, 2 * math.pi)
        x0, y0 = 150 + 88 * math.cos(a), 150 + 88 * math.sin(a)
        d.line([(x0, y0), (x0 + 18 * math.cos(a), y0 + 18 * math.sin(a))], fill=(70, 45, 35), width=2)
    return label(pil.filter(ImageFilter.GaussianBlur(0.5)))


# --------------------------------------------------------------------------
# Fundus and OCT
# --------------------------------------------------------------------------
def _vessels(d, rng, x, y, ang, length, width, depth, color):
    if depth == 0 or width < 1:
        return
    pts = [(x, y)]
    for _ in range(int(length / 6)):
        ang += rng.normal(0, 0.12)
        x, y = x + 6 * math.cos(ang), y + 6 * math.sin(ang)
        pts.append((x, y))
    d.line(pts, fill=color, width=int(width))
    for s in (-1, 1):
        _vessels(d, rng, x, y, ang + s * rng.uniform(0.3, 0.7), length * 0.7, width * 0.7, depth - 1, color)


def fundus(seed: int, proliferative: bool) -> Image.Image:
    rng = np.random.default_rng(seed)
    S = 320
    yy, xx = grid(S, S)
    r = np.sqrt((xx - 160) ** 2 + (yy - 160) ** 2)
    field = r < 152
    discx = 105 if proliferative else 215  # right eye: disc on image-left; left eye: image-right
    mac = 215 if proliferative else 105
    base = np.array([0.85, 0.38, 0.16], np.float32)
    t = blur(rng.random((S, S)).astype(np.float32), 4.0)
    img = base[None, None] * (0.92 + 0.2 * (t[..., None] - 0.5))
    img *= np.clip(1.15 - (r / 160) ** 2 * 0.6, 0, 1)[..., None]
    img *= (1 - 0.35 * np.exp(-(((xx - mac) ** 2 + (yy - 165) ** 2) / (2 * 18.0 ** 2))))[..., None]
    disc = ellipse(S, S, discx, 155, 20, 23)
    img[disc] = [0.98, 0.85, 0.55]
    img[ellipse(S, S, discx + 3, 155, 8, 10)] = [1.0, 0.94, 0.75]
    pil = to_rgb(np.clip(img, 0, 1))
    d = ImageDraw.Draw(pil)
    toward = 0.0 if discx < 160 else math.pi
    for a0 in (-1.1, -0.5, 0.5, 1.1):
        _vessels(d, rng, discx, 155, toward + a0, 70, 5, 4, (150, 30, 25))
        _vessels(d, rng, discx, 155, toward + a0 + 0.15, 65, 4, 4, (190, 60, 35))
    for _ in range(38):  # dot-blot haemorrhages
        x, y = rng.uniform(40, 280), rng.uniform(40, 280)
        if (x - 160) ** 2 + (y - 160) ** 2 < 140 ** 2:
            rad = rng.uniform(1.5, 3.5)
            d.ellipse([x - rad, y - rad, x + rad, y + rad], fill=(120, 15, 15))
    if proliferative:
        for _ in range(40):  # neovascular tangle on the disc
            a, rr = rng.uniform(0, 2 * math.pi), rng.uniform(4, 24)
            x0, y0 = discx + rr * math.cos(a), 155 + rr * math.sin(a)
            d.line([(x0, y0), (x0 + rng.normal(0, 7), y0 + rng.normal(0, 7))], fill=(170, 35, 40), width=1)
        d.chord([150, 215, 235, 265], 0, 180, fill=(110, 10, 12))  # boat-shaped preretinal bleed
        d.rectangle([150, 238, 235, 241], fill=(110, 10, 12))
    else:
        for k in range(22):  # circinate hard exudates temporal to fovea
            a = rng.uniform(-1.2, 1.2) + math.pi
            x, y = mac + 28 * math.cos(a) + rng.normal(0, 3), 165 + 24 * math.sin(a) + rng.normal(0, 3)
            d.ellipse([x - 2, y - 2, x + 2, y + 2], fill=(245, 220, 120))
    arr = np.asarray(pil.filter(ImageFilter.GaussianBlur(0.7)), np.float32) / 255
    arr = arr * field[..., None]
    return label(to_rgb(arr))


def oct_macula(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    W, H = 384, 200
    yy, xx = grid(H, W)
    top = 70 + 22 * np.exp(-((xx - 192) ** 2) / (2 * 25.0 ** 2)) * 0.2 - 12 * np.exp(-((xx - 192) ** 2) / (2 * 60.0 ** 2))
    top = top - 8  # thickened retina
    rpe = 150 + 3 * np.sin(xx / 40.0)
    a = np.zeros((H, W), np.float32) + 0.04
    ret = (yy > top) & (yy < rpe)
    a[ret] = 0.35
    for k, (off, val) in enumerate(((4, 0.65), (30, 0.55), (52, 0.25), (66, 0.50))):
        a[np.abs(yy - (top + off * (rpe - top) / 80)) < 2] = val
    a[(yy >= rpe) & (yy < rpe + 6)] = 0.95  # RPE
    a[(yy >= rpe + 6) & (yy < rpe + 30)] = 0.30  # choroid
    for _ in range(11):  # cystoid spaces
        cx, cy = rng.normal(192, 35), rng.uniform(95, 135)
        a[ellipse(H, W, cx, cy, rng.uniform(5, 11), rng.uniform(4, 9))] = 0.05
    for _ in range(30):  # hyperreflective foci
        cx, cy = rng.normal(192, 55), rng.uniform(90, 145)
        a[ellipse(H, W, cx, cy, 1.5, 1.5)] = 0.95
    a = blur(a, 0.8) + rng.gamma(1.0, 0.06, (H, W)).astype(np.float32) * (a > 0.1)
    return label(to_l(a))


# --------------------------------------------------------------------------
# Nuclear medicine (PET MIP, RGBA PNG)
# --------------------------------------------------------------------------
def pet_mip_rgba(seed: int) -> Image.Image:
    """Inverted-greyscale FDG PET maximum-intensity projection, saved as RGBA.

    Pixels outside the body are fully transparent (RGB stored as white) to
    exercise alpha handling in the builder.
    """
    rng = np.random.default_rng(seed)
    W, H = 200, 340
    u = np.zeros((H, W), np.float32)
    body = (ellipse(H, W, 100, 28, 20, 24) | ellipse(H, W, 100, 58, 9, 10) | ellipse(H, W, 100, 125, 48, 70)
            | ellipse(H, W, 100, 215, 44, 40) | ellipse(H, W, 80, 290, 14, 50) | ellipse(H, W, 120, 290, 14, 50)
            | ellipse(H, W, 40, 140, 9, 62, -8) | ellipse(H, W, 160, 140, 9, 62, 8))
    u[body] = 0.12
    u[ellipse(H, W, 100, 26, 17, 20)] = 0.70  # brain (physiological)
    u[ellipse(H, W, 108, 118, 16, 14)] = 0.55  # myocardium
    u[ellipse(H, W, 78, 180, 8, 12)] = 0.45  # kidneys
    u[ellipse(H, W, 122, 180, 8, 12)] = 0.45
    u[ellipse(H, W, 100, 240, 12, 9)] = 0.90  # bladder
    u[ellipse(H, W, 88, 160, 28, 20)] = np.maximum(u[ellipse(H, W, 88, 160, 28, 20)], 0.22)  # liver
    for cx, cy, rr in ((140, 100, 6), (134, 108, 5), (145, 110, 4)):  # left axillary nodes (image right)
        u[ellipse(H, W, cx, cy, rr, rr)] = 1.0
    u[ellipse(H, W, 112, 16, 4, 4)] = 1.0  # focal intracranial uptake
    u[ellipse(H, W, 122, 96, 3, 3)] = 0.5  # primary site, back (mild)
    u = blur(u, 1.6) + np.round(noise(rng, u.shape, 0.01) * body * 64) / 64
    grey = 1.0 - np.clip(u, 0, 1)  # inverted MIP display
    rgb = np.repeat(grey[..., None], 3, -1)
    alpha = blur(body.astype(np.float32), 1.5)
    rgb[alpha < 0.02] = 1.0
    rgba = np.concatenate([rgb, alpha[..., None]], -1)
    img = Image.fromarray(np.clip(rgba * 255 + 0.5, 0, 255).astype(np.uint8), "RGBA")
    return label(img, "br")


# --------------------------------------------------------------------------
# Traces: ECG (PNG), EEG (greyscale PNG), coronary angiogram (JPEG)
# --------------------------------------------------------------------------
def _beat(t, st=0.0, q=0.0):
    """One synthetic PQRST complex, t in seconds from the P wave onset (0..1)."""
    p = 0.12 * np.exp(-((t - 0.10) / 0.025) ** 2)
    qw = -(0.10 + q) * np.exp(-((t - 0.20) / 0.010) ** 2)
    r = (1.0 - q * 1.5) * np.exp(-((t - 0.225) / 0.012) ** 2)
    s = -0.25 * np.exp(-((t - 0.25) / 0.012) ** 2)
    stseg = st * ((t > 0.26) & (t < 0.42)) * np.clip((t - 0.25) / 0.02, 0, 1)
    tw = (0.25 + st * 0.8) * np.exp(-((t - 0.42) / 0.05) ** 2)
    return p + qw + r + s + stseg + tw


def ecg_12lead(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    W, H = 384, 264
    img = Image.new("RGB", (W, H), (255, 240, 240))
    d = ImageDraw.Draw(img)
    for x in range(0, W, 4):
        d.line([(x, 0), (x, H)], fill=(250, 205, 205) if x % 20 else (240, 150, 150))
    for y in range(0, H, 4):
        d.line([(0, y), (W, y)], fill=(250, 205, 205) if y % 20 else (240, 150, 150))
    leads = [["I", "aVR", "V1", "V4"], ["II", "aVL", "V2", "V5"], ["III", "aVF", "V3", "V6"]]
    st = {"I": 0.18, "aVL": 0.2, "V1": 0.25, "V2": 0.45, "V3": 0.45, "V4": 0.35, "V5": 0.2,
          "II": -0.12, "III": -0.18, "aVF": -0.15, "aVR": -0.05, "V6": 0.05}
    qq = {"V1": 0.5, "V2": 0.5, "V3": 0.4}
    font = ImageFont.load_default()
    px_per_s = 80.0
    for row, names in enumerate(leads + [["II"]]):
        y0 = 34 + row * 60
        for col, name in enumerate(names):
            x0 = col * 96 if row < 3 else 0
            seg = 96 if row < 3 else W
            xs = np.arange(x0, x0 + seg)
            t = (xs / px_per_s + 0.3) % 0.85 / 0.85
            amp = _beat(t, st.get(name, 0.0), qq.get(name, 0.0))
            if name == "aVR":
                amp = -amp
            ys = y0 - amp * 26 + rng.normal(0, 0.3, len(xs))
            d.line(list(zip(xs.tolist(), ys.tolist())), fill=(20, 20, 20), width=1)
            d.text((x0 + 3, y0 - 30), name, fill=(0, 0, 0), font=font)
    img = label(img, "br")
    return img.quantize(colors=16, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).convert("RGB")


def eeg_periodic(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    W, H = 384, 256
    img = Image.new("L", (W, H), 250)
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default()
    chans = ["Fp1-F3", "F3-C3", "C3-P3", "P3-O1", "Fp2-F4", "F4-C4", "C4-P4", "P4-O2",
             "Fp1-F7", "F7-T3", "T3-T5", "T5-O1", "Fp2-F8", "F8-T4", "T4-T6", "T6-O2"]
    for x in range(50, W, 33):  # 1-second gridlines
        d.line([(x, 0), (x, H - 16)], fill=215)
    xs = np.arange(50, W)
    t = (xs - 50) / 33.0
    for i, ch in enumerate(chans):
        y0 = 10 + i * 14.5
        slow = 1.6 * np.sin(2 * math.pi * 2.5 * t + rng.uniform(0, 6)) + rng.normal(0, 0.5, len(xs))
        phase = (t - 0.2) % 1.05
        sharp = (-12 if i % 4 != 3 else -8) * np.exp(-((phase - 0.05) / 0.03) ** 2) + 4.5 * np.exp(-((phase - 0.15) / 0.05) ** 2)
        ys = y0 + 5 + slow * 0.8 + sharp * 0.8
        d.line(list(zip(xs.tolist(), ys.tolist())), fill=30, width=1)
        d.text((2, y0), ch, fill=0, font=font)
    return label(img, "br")


def angiogram_lad(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    S = 300
    a = 0.62 + blur(rng.random((S, S)).astype(np.float32), 8.0) * 0.25
    img = to_l(a)
    d = ImageDraw.Draw(img)
    d.line([(20, 290), (70, 200), (110, 120), (128, 88)], fill=55, width=5)  # guide catheter
    # left main -> circumflex (patent), LAD stump abruptly cut off
    d.line([(128, 88), (150, 82)], fill=40, width=7)
    lcx = [(150, 82), (185, 95), (215, 130), (232, 180), (238, 235)]
    d.line(lcx, fill=45, width=5)
    for (x, y) in lcx[1:4]:
        d.line([(x, y), (x + rng.uniform(15, 30), y + rng.uniform(15, 35))], fill=60, width=3)
    d.line([(150, 82), (165, 70), (172, 64)], fill=45, width=6)  # proximal LAD stump
    d.polygon([(170, 60), (177, 64), (171, 70)], fill=70)  # tapered cut-off
    d.line([(150, 82), (158, 100), (162, 118)], fill=65, width=3)  # small diagonal branch
    a = np.asarray(img, np.float32) / 255.0
    a = blur(a, 1.3) + noise(rng, a.shape, 0.03)
    return label(to_l(a))


# --------------------------------------------------------------------------
# registry: relative path -> (generator, seed, save options)
# --------------------------------------------------------------------------
JPEG = {"quality": 82, "optimize": True}

IMAGES = {
    # S0001 – GI (endoscopy, histology, clinical photo)
    "S0001/1.jpg": (endoscopy_duodenum, 101, JPEG),
    "S0001/2.jpg": (wsi_duodenum_flat, 102, JPEG),
    "S0001/3.jpg": (photo_forearm_vesicles, 103, JPEG),
    # S0002 – chest radiograph, CT, biopsy
    "S0002/1.jpg": (xray_chest_cavity, 201, JPEG),
    "S0002/2.jpg": (ct_chest_cavity, 202, JPEG),
    "S0002/3.jpg": (wsi_granuloma, 203, JPEG),
    # S0003 – ECG (PNG), angiogram, echo, cardiac MRI
    "S0003/1.png": (ecg_12lead, 301, {"optimize": True}),
    "S0003/2.jpg": (angiogram_lad, 302, JPEG),
    "S0003/3.jpg": (us_echo_a4c, 303, JPEG),
    "S0003/4.jpg": (mri_cardiac_lge, 304, JPEG),
    # S0004 – head CT, MRI T1+C, rCBV map
    "S0004/1.jpg": (ct_head_mass, 401, JPEG),
    "S0004/2.jpg": (mri_t1c_ring, 402, JPEG),
    "S0004/3.jpg": (mri_rcbv_map, 403, JPEG),
    # S0005 – clinical photo, dermoscopy, 2 histology, PET (RGBA PNG)
    "S0005/1.jpg": (photo_back_pigmented, 501, JPEG),
    "S0005/2.jpg": (dermoscopy_pigmented, 502, JPEG),
    "S0005/3.jpg": (wsi_melanoma_low, 503, JPEG),
    "S0005/4.jpg": (wsi_node_high, 504, JPEG),
    "S0005/5.png": (pet_mip_rgba, 505, {"optimize": True}),
    # S0006 – two fundus photographs + OCT
    "S0006/1.jpg": (lambda s: fundus(s, proliferative=True), 601, JPEG),
    "S0006/2.jpg": (lambda s: fundus(s, proliferative=False), 602, JPEG),
    "S0006/3.jpg": (oct_macula, 603, JPEG),
    # S0007 – abdominal CT
    "S0007/1.jpg": (ct_abdomen_abscesses, 701, JPEG),
    # S0008 – chest radiograph + CTPA MIP
    "S0008/1.jpg": (xray_chest_scimitar, 801, JPEG),
    "S0008/2.jpg": (ctpa_coronal_scimitar, 802, JPEG),
    # S0009 – pelvis radiograph (greyscale 'L' PNG), STIR MRI, lumbar radiograph
    "S0009/1.png": (xray_pelvis_sacroiliitis, 901, {"optimize": True}),
    "S0009/2.jpg": (mri_si_stir, 902, JPEG),
    "S0009/3.jpg": (xray_lumbar_lateral, 903, JPEG),
    # S0010 – DWI, ADC, EEG (greyscale PNG)
    "S0010/1.jpg": (lambda s: mri_dwi_ribbon(s, adc=False), 1001, JPEG),
    "S0010/2.jpg": (lambda s: mri_dwi_ribbon(s, adc=True), 1002, JPEG),
    "S0010/3.png": (eeg_periodic, 1003, {"optimize": True}),
}


def main() -> None:
    total = 0
    for rel, (fn, seed, opts) in IMAGES.items():
        img = fn(seed)
        path = OUT / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        fmt = "JPEG" if path.suffix == ".jpg" else "PNG"
        if fmt == "JPEG" and img.mode not in ("L", "RGB"):
            img = img.convert("RGB")
        img.save(path, fmt, **opts)
        size = path.stat().st_size
        total += size
        print(f"{rel:14s} {img.mode:5s} {img.size[0]}x{img.size[1]:<4d} {size / 1024:6.1f} KB")
    print(f"total {total / 1024:.1f} KB in {len(IMAGES)} files")


if __name__ == "__main__":
    main()
