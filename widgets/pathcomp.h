/* pathcomp.h - the workspace field's path help: `~` expansion and Tab
 * completion of directories, as bash does for `cd`. */
#ifndef LZ_PATHCOMP_H
#define LZ_PATHCOMP_H

/* text with a leading `~` or `~/` replaced by the home; anything else
 * (`~user` too) unchanged. Caller frees. */
char *pathcomp_expand(const char *text);

/* text (tilde-expanded) completed against the directories in its last
 * component's parent: one match fills in with a trailing '/', several fill
 * in their longest common prefix, none leave it as expanded. Names starting
 * with '.' only when the typed part does. Caller frees. */
char *pathcomp_complete(const char *text);

#endif
