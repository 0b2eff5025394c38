/* term-draw.h - draw a term's dirty rows into an ncurses WINDOW (dvtm vt_draw).
 *
 * The only code under vterm/ that touches ncurses. Call term_draw_new() once
 * per ncurses SCREEN after start_color(); it calls use_default_colors() so
 * libvterm's default fg/bg become -1 (the outer terminal's own colours).
 *
 * Colours: indexed colours pass through when the terminal has them
 * (COLORS >= 256); on 8/16-colour terminals they are approximated (bright
 * 8..15 become 0..7 with A_BOLD on 8 colours). True colour is sent as-is on
 * a direct-colour terminal (terminfo flag RGB, e.g. TERM=xterm-direct) and
 * otherwise approximated to the nearest of the xterm 256-colour palette.
 * Pairs come from a cache keyed by (fg, bg) and are made with
 * init_extended_pair, so more than 32767 pairs work; when COLOR_PAIRS runs
 * out the cache restarts and term_draw_generation() changes: redraw all.
 * libvterm 0.1.4 has no dim/faint attribute, and ncurses no strike-through,
 * so neither is drawn.
 */
#ifndef LZ_TERM_DRAW_H
#define LZ_TERM_DRAW_H

#include <curses.h>
#include <stdint.h>

#include "term.h"

struct term_draw;

struct term_draw *term_draw_new(void);
void term_draw_free(struct term_draw *);

/* Draw t's dirty view rows into win from its top-left corner and clear the
 * dirty range; rows/columns beyond win are cut. Returns rows drawn. */
int term_draw(struct term_draw *, struct term *t, WINDOW *win);
/* Put win's cursor where t's is and set its visibility with curs_set (for
 * the focused tab only; hidden while scrolled back). Returns 0 or 1. */
int term_draw_cursor(const struct term *t, WINDOW *win);

/* ncurses colour number for a libvterm colour: -1 for default. */
int term_draw_color(const struct term_draw *, const struct term *t, const VTermColor *c, bool fg);
/* ncurses colour number for palette index 0..255 or an RGB value, as this
 * terminal can show it (for UI colours from a theme). */
int term_draw_index_color(const struct term_draw *, int idx);
int term_draw_rgb_color(const struct term_draw *, uint8_t r, uint8_t g, uint8_t b);
/* A colour pair for (fg, bg) ncurses colour numbers (-1 = default). */
int term_draw_pair(struct term_draw *, int fg, int bg);
/* Changes when the pair cache restarted; pairs handed out earlier are void. */
unsigned term_draw_generation(const struct term_draw *);

/* Nearest colour of the xterm 256 palette (16..255) to an RGB value. */
int term_draw_rgb_to_256(uint8_t r, uint8_t g, uint8_t b);
/* Nearest of the first n (8 or 16) ANSI colours to an RGB value. */
int term_draw_rgb_to_ansi(uint8_t r, uint8_t g, uint8_t b, int n);

#endif
