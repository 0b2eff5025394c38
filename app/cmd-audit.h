/* cmd-audit.h - lazaret audit (also to be listed in commands.h). */
#ifndef LZ_CMD_AUDIT_H
#define LZ_CMD_AUDIT_H

int cmd_audit(int argc, char **argv);

#endif
