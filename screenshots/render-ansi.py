#!/usr/bin/python3
"""render-ansi.py - draw a `tmux capture-pane -pe` dump (text with SGR colour
sequences) as a PNG, one monospace cell per character, with Pillow.

usage: render-ansi.py IN.txt OUT.png COLS ROWS [light]
"""
import re
import sys
import unicodedata

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
SIZE = 15
CW, CH = 9, 19
FG, BG = (0xd0, 0xd0, 0xd0), (0x1c, 0x1c, 0x1c)
ANSI = [(0x00, 0x00, 0x00), (0xcd, 0x31, 0x31), (0x0d, 0xbc, 0x79), (0xe5, 0xe5, 0x10),
        (0x24, 0x72, 0xc8), (0xbc, 0x3f, 0xbc), (0x11, 0xa8, 0xcd), (0xe5, 0xe5, 0xe5),
        (0x66, 0x66, 0x66), (0xf1, 0x4c, 0x4c), (0x23, 0xd1, 0x8b), (0xf5, 0xf5, 0x43),
        (0x3b, 0x8e, 0xea), (0xd6, 0x70, 0xd6), (0x29, 0xb8, 0xdb), (0xff, 0xff, 0xff)]


def xterm256(n):
    if n < 16:
        return ANSI[n]
    if n < 232:
        n -= 16
        lv = [0, 95, 135, 175, 215, 255]
        return (lv[n // 36], lv[(n // 6) % 6], lv[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


def sgr(params, st):
    p = [int(x) if x else 0 for x in params.split(";")] if params else [0]
    i = 0
    while i < len(p):
        c = p[i]
        if c == 0:
            st.update(fg=None, bg=None, bold=False, ul=False, rev=False)
        elif c == 1:
            st["bold"] = True
        elif c == 22:
            st["bold"] = False
        elif c == 4:
            st["ul"] = True
        elif c == 24:
            st["ul"] = False
        elif c == 7:
            st["rev"] = True
        elif c == 27:
            st["rev"] = False
        elif 30 <= c <= 37:
            st["fg"] = ANSI[c - 30]
        elif 90 <= c <= 97:
            st["fg"] = ANSI[c - 90 + 8]
        elif 40 <= c <= 47:
            st["bg"] = ANSI[c - 40]
        elif 100 <= c <= 107:
            st["bg"] = ANSI[c - 100 + 8]
        elif c == 39:
            st["fg"] = None
        elif c == 49:
            st["bg"] = None
        elif c in (38, 48) and i + 1 < len(p):
            key = "fg" if c == 38 else "bg"
            if p[i + 1] == 5 and i + 2 < len(p):
                st[key] = xterm256(p[i + 2])
                i += 2
            elif p[i + 1] == 2 and i + 4 < len(p):
                st[key] = tuple(p[i + 2:i + 5])
                i += 4
        i += 1


def main():
    global FG, BG
    src, out, cols, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if len(sys.argv) > 5 and sys.argv[5] == "light":
        FG, BG = (0x20, 0x20, 0x20), (0xfa, 0xfa, 0xfa)
    font = ImageFont.truetype(FONT, SIZE)
    bold = ImageFont.truetype(FONT_BOLD, SIZE)
    img = Image.new("RGB", (cols * CW + 16, rows * CH + 16), BG)
    d = ImageDraw.Draw(img)
    st = dict(fg=None, bg=None, bold=False, ul=False, rev=False)
    tok = re.compile(r"\x1b\[([0-9;]*)m|\x1b\[[0-9;?]*[A-Za-z]|\x1b.|(.)", re.S)
    with open(src, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    for y, line in enumerate(lines[:rows]):
        x = 0
        for m in tok.finditer(line):
            if m.group(1) is not None:
                sgr(m.group(1), st)
                continue
            ch = m.group(2)
            if ch is None or x >= cols:
                continue
            if unicodedata.combining(ch):
                continue
            w = 2 if unicodedata.east_asian_width(ch) in "WF" else 1
            fg, bg = st["fg"] or FG, st["bg"] or BG
            if st["rev"]:
                fg, bg = bg, fg
            px, py = 8 + x * CW, 8 + y * CH
            d.rectangle([px, py, px + w * CW - 1, py + CH - 1], fill=bg)
            if ch in "─│┌┐└┘├┤┬┴┼":
                # Box drawing joined cell to cell, whatever the font's metrics.
                mx, my = px + CW // 2, py + CH // 2
                if ch in "─┌┐└┘├┤┬┴┼":
                    x0 = mx if ch in "┌└├" else px
                    x1 = mx if ch in "┐┘┤" else px + CW
                    d.line([x0, my, x1, my], fill=fg)
                if ch in "│┌┐└┘├┤┬┴┼":
                    y0 = my if ch in "┌┐┬" else py
                    y1 = my if ch in "└┘┴" else py + CH
                    d.line([mx, y0, mx, y1], fill=fg)
            elif ch != " ":
                d.text((px, py + 1), ch, font=bold if st["bold"] else font, fill=fg)
            if st["ul"]:
                d.line([px, py + CH - 2, px + w * CW - 1, py + CH - 2], fill=fg)
            x += w
    img.save(out)


main()
