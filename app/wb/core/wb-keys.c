/* wb-keys.c - prefix key state machine and the binding table (see wb-keys.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shellwords.h"
#include "strv.h"
#include "term.h"
#include "wb-keys.h"
#include "xmalloc.h"

struct wb_keys {
	int prefix;
	bool pending;
	struct wb_keys_binding *b;
	size_t n, cap;
};

static const struct {
	const char *name;	/* command name */
	const char *label;	/* short, for status line hints */
	const char *help;
} actions[WB_KEYS_N_ACTIONS] = {
	[WB_KEYS_NEW_TAB] = { "new-tab", "new", "open a new sandbox tab" },
	[WB_KEYS_NEXT_TAB] = { "next-tab", "next", "go to the next tab" },
	[WB_KEYS_PREV_TAB] = { "previous-tab", "prev", "go to the previous tab" },
	[WB_KEYS_SELECT_TAB] = { "select-tab", "tab", "go to tab N" },
	[WB_KEYS_CLOSE_TAB] = { "close-tab", "close", "close the tab (its session ends)" },
	[WB_KEYS_DETACH] = { "detach", "detach", "detach; every session keeps running" },
	[WB_KEYS_TOGGLE_PANEL] = { "toggle-panel", "panel", "show or hide the side panel" },
	[WB_KEYS_FOCUS_PANEL] = { "focus-panel", "focus", "move the focus to the side panel and back" },
	[WB_KEYS_SCROLLBACK] = { "scrollback", "scroll", "scroll back through the tab's history" },
	[WB_KEYS_REQUEST] = { "request", "request", "open the selected escalation (approve it there with its code)" },
	[WB_KEYS_DENY] = { "deny", "deny", "deny the selected escalation" },
	[WB_KEYS_EDIT] = { "edit", "edit", "edit the selected escalation's command" },
	[WB_KEYS_HELP] = { "help", "help", "list the key bindings" },
	[WB_KEYS_SEND_PREFIX] = { "send-prefix", "send", "send the prefix key to the tab" },
	[WB_KEYS_REVIEW] = { "review", "review", "review the agent's commits: diff, surface, merge, discard" },
	[WB_KEYS_COPY_URL] = { "copy-url", "url", "copy the tab's newest URL (a login link) to the terminal's clipboard" },
	[WB_KEYS_NEXT_WAITING] = { "next-waiting", "waiting", "go to the next tab that needs you (input ? or approval !)" },
	[WB_KEYS_DASHBOARD] = { "dashboard", "domains", "every domain of yours: state, sessions, memory, requests" },
	[WB_KEYS_RENAME_TAB] = { "rename-tab", "rename", "name the tab" },
	[WB_KEYS_COMMAND] = { "command-prompt", "command", "type a command: source-file [FILE], rename-tab NAME" },
	[WB_KEYS_TIMELINE] = { "timeline", "timeline", "what the tab's agent did this session: requests, network, commits, limits" },
};

static const struct {
	const char *name;
	int key;
} named[] = {
	{ "Tab", 9 }, { "BTab", WIDGET_KEY_FN(KEY_BTAB) }, { "Enter", 13 }, { "Escape", 27 },
	{ "Esc", 27 }, { "Space", 32 }, { "BSpace", 127 }, { "Up", WIDGET_KEY_FN(KEY_UP) },
	{ "Down", WIDGET_KEY_FN(KEY_DOWN) }, { "Left", WIDGET_KEY_FN(KEY_LEFT) },
	{ "Right", WIDGET_KEY_FN(KEY_RIGHT) }, { "Home", WIDGET_KEY_FN(KEY_HOME) },
	{ "End", WIDGET_KEY_FN(KEY_END) }, { "PgUp", WIDGET_KEY_FN(KEY_PPAGE) },
	{ "PPage", WIDGET_KEY_FN(KEY_PPAGE) }, { "PgDn", WIDGET_KEY_FN(KEY_NPAGE) },
	{ "NPage", WIDGET_KEY_FN(KEY_NPAGE) }, { "IC", WIDGET_KEY_FN(KEY_IC) },
	{ "DC", WIDGET_KEY_FN(KEY_DC) },
};

/* Control codes spelled with C- besides the letters, as a terminal sends them. */
static const struct {
	char c;
	int code;
} ctrl_punct[] = {
	{ '@', 0 }, { ' ', 0 }, { '[', 27 }, { '\\', 28 }, { ']', 29 }, { '^', 30 }, { '_', 31 }, { '?', 127 },
};

static int
ctrl_of(int c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return c & 0x1f;
	for (size_t i = 0; i < sizeof(ctrl_punct) / sizeof(ctrl_punct[0]); i++)
		if (ctrl_punct[i].c == c)
			return ctrl_punct[i].code;
	return -1;
}

int
wb_keys_parse_key(const char *name, int *key, lz_err_t *err)
{
	const char *s = name;
	bool ctrl = false, meta = false;
	int base = -1;
	uint32_t cp;
	size_t len;

	for (;;) {
		if (strlen(s) > 2 && s[1] == '-' && (s[0] == 'C' || s[0] == 'M')) {
			*(s[0] == 'C' ? &ctrl : &meta) = true;
			s += 2;
		} else if (s[0] == '^' && s[1] != '\0' && !ctrl) {
			ctrl = true;
			s++;
		} else {
			break;
		}
	}
	len = strlen(s);
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (strcasecmp(s, named[i].name) == 0)
			base = named[i].key;
	if (base < 0 && (s[0] == 'F' || s[0] == 'f') && len >= 2 && len <= 3 && strspn(s + 1, "0123456789") == len - 1) {
		int n = atoi(s + 1);

		if (n >= 1 && n <= 12)
			base = WIDGET_KEY_FN(KEY_F(n));
	}
	if (base < 0 && len > 0 && lz_shellwords_utf8((const unsigned char *)s, len, &cp) == len &&
	    cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0))
		base = (int)cp;
	if (base < 0)
		return lz_err_set(err, LZ_EINVAL, "unknown key '%s': use a character, C-x, M-x or a key name like Tab or F1", name);
	if (ctrl) {
		int c = WIDGET_KEY_IS_FN(base) ? -1 : ctrl_of(base);

		if (c < 0)
			return lz_err_set(err, LZ_EINVAL, "no control key '%s': C- goes with a letter or one of @[\\]^_? and Space", name);
		base = c;
	}
	*key = base | (meta ? WIDGET_KEY_META : 0);
	return 0;
}

void
wb_keys_key_name(int key, char buf[WB_KEYS_NAME_MAX])
{
	int k = key & ~WIDGET_KEY_META;
	const char *m = key & WIDGET_KEY_META ? "M-" : "";
	char u[5] = "";

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (named[i].key == k) {
			snprintf(buf, WB_KEYS_NAME_MAX, "%s%s", m, named[i].name);
			return;
		}
	if (WIDGET_KEY_IS_FN(k)) {
		int fn = k & ~WIDGET_KEY_FN(0);

		if (fn >= KEY_F(1) && fn <= KEY_F(12))
			snprintf(buf, WB_KEYS_NAME_MAX, "%sF%d", m, fn - KEY_F0);
		else
			snprintf(buf, WB_KEYS_NAME_MAX, "%sKey%d", m, fn);
		return;
	}
	if (k == 0) {
		snprintf(buf, WB_KEYS_NAME_MAX, "%sC-Space", m);
		return;
	}
	if (k >= 1 && k <= 26) {
		snprintf(buf, WB_KEYS_NAME_MAX, "%sC-%c", m, 'a' + k - 1);
		return;
	}
	for (size_t i = 0; i < sizeof(ctrl_punct) / sizeof(ctrl_punct[0]); i++)
		if (ctrl_punct[i].code == k && ctrl_punct[i].c != ' ' && ctrl_punct[i].c != '@') {
			snprintf(buf, WB_KEYS_NAME_MAX, "%sC-%c", m, ctrl_punct[i].c);
			return;
		}
	u[term_utf8_put((uint32_t)k, u)] = '\0';
	snprintf(buf, WB_KEYS_NAME_MAX, "%s%s", m, u);
}

static struct wb_keys_binding *
find(const struct wb_keys *k, int key)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->b[i].key == key)
			return &k->b[i];
	return NULL;
}

static void
set_binding(struct wb_keys *k, int key, enum wb_keys_action a, int arg)
{
	struct wb_keys_binding *b = find(k, key);

	if (b == NULL) {
		if (k->n == k->cap) {
			k->cap = k->cap == 0 ? 32 : 2 * k->cap;
			k->b = xreallocarray(k->b, k->cap, sizeof(*k->b));
		}
		b = &k->b[k->n++];
	}
	*b = (struct wb_keys_binding){ .key = key, .action = a, .arg = arg };
}

struct wb_keys *
wb_keys_new(void)
{
	static const struct {
		int key;
		enum wb_keys_action a;
	} defaults[] = {
		{ 'c', WB_KEYS_NEW_TAB }, { 'n', WB_KEYS_NEXT_TAB }, { 'p', WB_KEYS_PREV_TAB },
		{ 'x', WB_KEYS_CLOSE_TAB }, { 'd', WB_KEYS_DETACH }, { 's', WB_KEYS_TOGGLE_PANEL },
		{ 9, WB_KEYS_FOCUS_PANEL }, { '[', WB_KEYS_SCROLLBACK }, { 'a', WB_KEYS_SEND_PREFIX },
		{ 'r', WB_KEYS_REQUEST }, { 'D', WB_KEYS_DENY }, { 'e', WB_KEYS_EDIT },
		{ 'E', WB_KEYS_EDIT }, { 'R', WB_KEYS_REVIEW }, { '?', WB_KEYS_HELP },
		{ 'u', WB_KEYS_COPY_URL }, { 'N', WB_KEYS_NEXT_WAITING },
		{ 'n' | WIDGET_KEY_META, WB_KEYS_NEXT_WAITING }, { 'w', WB_KEYS_DASHBOARD },
		{ ',', WB_KEYS_RENAME_TAB }, { ':', WB_KEYS_COMMAND },
		{ 'u', WB_KEYS_COPY_URL }, { 't', WB_KEYS_TIMELINE },
	};
	struct wb_keys *k = xcalloc(1, sizeof(*k));

	k->prefix = 1;	/* C-a */
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		set_binding(k, defaults[i].key, defaults[i].a, 0);
	for (int i = 0; i <= 9; i++)
		set_binding(k, '0' + i, WB_KEYS_SELECT_TAB, i);
	return k;
}

void
wb_keys_free(struct wb_keys *k)
{
	if (k == NULL)
		return;
	free(k->b);
	free(k);
}

int
wb_keys_set_prefix(struct wb_keys *k, const char *name, lz_err_t *err)
{
	int key;

	if (wb_keys_parse_key(name, &key, err) < 0)
		return lz_err_wrap(err, "prefix");
	k->prefix = key;
	k->pending = false;
	return 0;
}

int
wb_keys_prefix(const struct wb_keys *k)
{
	return k->prefix;
}

/* Enter and Backspace arrive in several spellings; the table holds one. */
static int
normalize(int key)
{
	if (key == '\n' || key == WIDGET_KEY_FN(KEY_ENTER))
		return 13;
	if (key == WIDGET_KEY_FN(KEY_BACKSPACE))
		return 127;
	return key;
}

int
wb_keys_bind(struct wb_keys *k, const char *key, const char *command, lz_err_t *err)
{
	const char *sp = strchr(command, ' ');
	size_t nlen = sp != NULL ? (size_t)(sp - command) : strlen(command);
	int code, arg = 0;

	if (wb_keys_parse_key(key, &code, err) < 0)
		return -1;
	for (int a = WB_KEYS_NEW_TAB; a < WB_KEYS_N_ACTIONS; a++) {
		if (strlen(actions[a].name) != nlen || strncmp(actions[a].name, command, nlen) != 0)
			continue;
		if (a == WB_KEYS_SELECT_TAB) {
			char *end;
			long n;

			if (sp == NULL || sp[1] == '\0')
				return lz_err_set(err, LZ_EINVAL, "%s: select-tab needs a tab number", key);
			n = strtol(sp + 1, &end, 10);
			if (*end != '\0' || sp[1] < '0' || sp[1] > '9' || n > WB_KEYS_SELECT_MAX)
				return lz_err_set(err, LZ_EINVAL, "%s: select-tab %s: expected a number 0..%d",
						  key, sp + 1, WB_KEYS_SELECT_MAX);
			arg = (int)n;
		} else if (sp != NULL) {
			return lz_err_set(err, LZ_EINVAL, "%s: %s takes no argument", key, actions[a].name);
		}
		set_binding(k, normalize(code), (enum wb_keys_action)a, arg);
		return 0;
	}
	return lz_err_set(err, LZ_EINVAL, "%s: unknown command '%.*s' (see the help screen, prefix ?)", key,
			  (int)nlen, command);
}

int
wb_keys_unbind(struct wb_keys *k, const char *key, lz_err_t *err)
{
	struct wb_keys_binding *b;
	int code;

	if (wb_keys_parse_key(key, &code, err) < 0)
		return -1;
	b = find(k, normalize(code));
	if (b == NULL)
		return lz_err_set(err, LZ_EINVAL, "%s: not bound", key);
	memmove(b, b + 1, (size_t)(&k->b[k->n] - (b + 1)) * sizeof(*b));
	k->n--;
	return 0;
}

enum wb_keys_action
wb_keys_lookup(const struct wb_keys *k, int key, int *arg)
{
	const struct wb_keys_binding *b = find(k, normalize(key));

	*arg = 0;
	if (b != NULL) {
		*arg = b->arg;
		return b->action;
	}
	return key == k->prefix ? WB_KEYS_SEND_PREFIX : WB_KEYS_UNBOUND;
}

enum wb_keys_action
wb_keys_feed(struct wb_keys *k, int key, int *arg)
{
	*arg = 0;
	if (key == WIDGET_KEY_NONE)
		return WB_KEYS_PASS;
	if (k->pending) {
		k->pending = false;
		return wb_keys_lookup(k, key, arg);
	}
	if (key == k->prefix) {
		k->pending = true;
		return WB_KEYS_PREFIX;
	}
	return WB_KEYS_PASS;
}

bool
wb_keys_pending(const struct wb_keys *k)
{
	return k->pending;
}

void
wb_keys_cancel(struct wb_keys *k)
{
	k->pending = false;
}

size_t
wb_keys_fold_meta(int *keys, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		if (keys[i] == WIDGET_KEY_ESC && i + 1 < n && keys[i + 1] != WIDGET_KEY_ESC &&
		    keys[i + 1] != WIDGET_KEY_NONE && !(keys[i + 1] & WIDGET_KEY_META)) {
			keys[out++] = keys[++i] | WIDGET_KEY_META;
			continue;
		}
		keys[out++] = keys[i];
	}
	return out;
}

const char *
wb_keys_action_name(enum wb_keys_action a)
{
	return a >= 0 && a < WB_KEYS_N_ACTIONS ? actions[a].name : NULL;
}

const char *
wb_keys_action_help(enum wb_keys_action a)
{
	return a >= 0 && a < WB_KEYS_N_ACTIONS ? actions[a].help : NULL;
}

const struct wb_keys_binding *
wb_keys_binding(const struct wb_keys *k, size_t i)
{
	return i < k->n ? &k->b[i] : NULL;
}

char *
wb_keys_hints(const struct wb_keys *k, const enum wb_keys_action *acts, size_t n)
{
	static const enum wb_keys_action def[] = {
		WB_KEYS_NEW_TAB, WB_KEYS_NEXT_TAB, WB_KEYS_TOGGLE_PANEL, WB_KEYS_FOCUS_PANEL,
		WB_KEYS_DETACH, WB_KEYS_HELP,
	};
	char name[WB_KEYS_NAME_MAX];
	char *out, *tmp;

	if (acts == NULL) {
		acts = def;
		n = sizeof(def) / sizeof(def[0]);
	}
	wb_keys_key_name(k->prefix, name);
	out = xasprintf("%s:", name);
	for (size_t i = 0; i < n; i++) {
		const struct wb_keys_binding *b = NULL;

		for (size_t j = 0; j < k->n && b == NULL; j++)
			if (k->b[j].action == acts[i])
				b = &k->b[j];
		if (b == NULL || acts[i] < WB_KEYS_NEW_TAB || acts[i] >= WB_KEYS_N_ACTIONS)
			continue;
		wb_keys_key_name(b->key, name);
		tmp = xasprintf("%s %s %s", out, name, actions[acts[i]].label);
		free(out);
		out = tmp;
	}
	return out;
}

char **
wb_keys_help(const struct wb_keys *k)
{
	char pre[WB_KEYS_NAME_MAX], key[WB_KEYS_NAME_MAX], cmd[WB_KEYS_NAME_MAX + 16];
	char **lines = NULL;

	wb_keys_key_name(k->prefix, pre);
	for (size_t i = 0; i < k->n; i++) {
		const struct wb_keys_binding *b = &k->b[i];

		/* The default 0..9 fold into one line: the page stays one screen. */
		if (b->action == WB_KEYS_SELECT_TAB && b->key == '0' + b->arg) {
			if (b->arg == 0)
				lz_strv_pushf(&lines, "%s %-8s %-14s %s", pre, "0-9", "select-tab N",
				    actions[b->action].help);
			continue;
		}
		wb_keys_key_name(b->key, key);
		if (b->action == WB_KEYS_SELECT_TAB)
			snprintf(cmd, sizeof(cmd), "select-tab %d", b->arg);
		else
			snprintf(cmd, sizeof(cmd), "%s", actions[b->action].name);
		lz_strv_pushf(&lines, "%s %-8s %-14s %s", pre, key, cmd, actions[b->action].help);
	}
	if (find(k, k->prefix) == NULL)
		lz_strv_pushf(&lines, "%s %-8s %-14s %s", pre, pre, actions[WB_KEYS_SEND_PREFIX].name,
			      actions[WB_KEYS_SEND_PREFIX].help);
	return lines;
}
