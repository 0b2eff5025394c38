#!/usr/bin/env bash
# bench/store.sh - figures for the state store (never assertions): open and
# migrate, audit appends one per transaction and batched, verify, jobs through
# store_submit, and how fast a second process is turned away.
# Builds a small harness against $LAZARET_BUILD (default build/) libraries.
set -eu
cd "$(dirname "$0")/.."
BUILD=${LAZARET_BUILD:-build}
N=${N:-5000}
for l in "$BUILD/libbackend.a" "$BUILD/libhost.a" "$BUILD"/lib{base,policy,wire,config,trust}.a; do
	[ -f "$l" ] || { echo "no $l: run make first"; exit 1; }
done
D=$(mktemp -d /tmp/lz-bench-store.XXXXXX)
trap 'rm -rf "$D"' EXIT

cat >"$D/bench.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "store/audit.h"
#include "store/store.h"

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void die(lz_err_t *e) { lz_err_print(e); exit(1); }
static int n_jobs;
static int job_cb(struct store *st, void *a, lz_err_t *e) {
	struct audit_rec r = { .kind = "esc.result", .actor = "bench", .detail = "{\"ok\":true}" };
	(void)a; return audit_append(st, &r, NULL, e);
}
static void done_cb(void *a, int status, lz_err_t *e) { (void)a; if (status) die(e); n_jobs++; }

int main(int argc, char **argv) {
	const char *dir = argv[1]; int n = atoi(argv[2]), i; char *p, *q; double t;
	lz_err_t err = LZ_ERR_INIT; struct store *st; struct audit_verify_result vr;
	struct audit_rec r = { .kind = "esc.request", .actor = "coordinator", .session_id = "s1",
	    .request_id = "r1", .detail = "{\"argv\":[\"make\",\"test\"],\"why\":\"run the tests\"}" };
	(void)argc;
	if (asprintf(&p, "%s/state.db", dir) < 0 || asprintf(&q, "%s/v1.db", dir) < 0) return 1;
	t = now(); if (store_open(p, &st, &err) < 0) die(&err);
	printf("open new file (create, WAL, migrate v0->v2): %.2f ms\n", (now() - t) * 1e3);
	t = now(); for (i = 0; i < n; i++) if (audit_append(st, &r, NULL, &err) < 0) die(&err);
	t = now() - t; printf("audit_append, one transaction each: %d rows, %.1f us/row\n", n, t / n * 1e6);
	t = now(); if (store_tx_begin(st, &err) < 0) die(&err);
	for (i = 0; i < n; i++) if (audit_append(st, &r, NULL, &err) < 0) die(&err);
	if (store_tx_commit(st, &err) < 0) die(&err);
	t = now() - t; printf("audit_append, %d in one store_tx: %.1f us/row\n", n, t / n * 1e6);
	t = now(); if (audit_verify(st, &vr, &err) < 0 || !vr.ok) die(&err);
	printf("audit_verify, %lld rows: %.2f ms\n", (long long)vr.rows, (now() - t) * 1e3);
	audit_verify_result_clear(&vr);
	{
		uv_loop_t loop; uv_loop_init(&loop);
		t = now(); for (i = 0; i < n; i++) store_submit(&loop, st, job_cb, done_cb, NULL);
		uv_run(&loop, UV_RUN_DEFAULT); t = now() - t; uv_loop_close(&loop);
		printf("store_submit, %d append jobs in FIFO on the threadpool: %.1f us/job\n", n_jobs, t / n_jobs * 1e6);
	}
	{
		int pfd[2]; pid_t pid; double ms; char c;
		if (pipe(pfd) < 0) return 1;
		store_close(st);
		fflush(stdout);
		pid = fork();	/* before the parent opens: no SQLite state crosses */
		if (pid == 0) {
			struct store *s2; lz_err_t e2 = LZ_ERR_INIT;
			if (read(pfd[0], &c, 1) != 1) _exit(2);
			t = now(); i = store_open(p, &s2, &e2); ms = (now() - t) * 1e3;
			printf("second process refused in %.2f ms: %s\n", ms, i < 0 ? e2.msg : "(opened!)");
			fflush(stdout); _exit(0);
		}
		if (store_open(p, &st, &err) < 0) die(&err);
		if (write(pfd[1], "g", 1) != 1) return 1;
		waitpid(pid, NULL, 0);
		store_close(st);
	}
	{
		sqlite3 *db; sqlite3_stmt *s;
		if (sqlite3_open(q, &db) != SQLITE_OK) return 1;
		sqlite3_exec(db, "CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, started INTEGER NOT NULL, info TEXT NOT NULL);"
		    "CREATE TABLE audit (seq INTEGER PRIMARY KEY, ts INTEGER NOT NULL, kind TEXT NOT NULL, actor TEXT NOT NULL,"
		    " session_id TEXT, request_id TEXT, detail TEXT NOT NULL, prev_hash BLOB NOT NULL, hash BLOB NOT NULL);"
		    "CREATE TABLE audit_head (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, hash BLOB NOT NULL);"
		    "INSERT INTO audit_head VALUES (1, 0, zeroblob(32)); PRAGMA user_version=1; BEGIN", NULL, NULL, NULL);
		sqlite3_prepare_v2(db, "INSERT INTO sessions VALUES (printf('s%06d', ?1), 1700000000 + ?1,"
		    " json_object('profile', 'web', 'workspace', '/home/u/p', 'pid', ?1, 'ended', 1700000100 + ?1, 'exit', 0))", -1, &s, NULL);
		for (i = 0; i < n; i++) { sqlite3_bind_int(s, 1, i); sqlite3_step(s); sqlite3_reset(s); }
		sqlite3_finalize(s); sqlite3_exec(db, "COMMIT", NULL, NULL, NULL); sqlite3_close(db);
		t = now(); if (store_open(q, &st, &err) < 0) die(&err);
		printf("migrate v1->v2, %d sessions (JSON blob to typed columns): %.1f ms\n", n, (now() - t) * 1e3);
		store_close(st);
	}
	free(p); free(q);
	return 0;
}
EOF
# shellcheck disable=SC2046
cc -std=c17 -D_GNU_SOURCE -O2 -Ibackend/common/base -Ibackend/common/policy -Ibackend/common/wire -Ibackend/common/config -Ibackend/common/trust -Ibackend $(pkg-config --cflags libuv sqlite3 libsodium) \
	-o "$D/bench" "$D/bench.c" -Wl,--start-group "$BUILD/libbackend.a" "$BUILD/libhost.a" "$BUILD"/lib{base,policy,wire,config,trust}.a -Wl,--end-group \
	$(pkg-config --libs libuv sqlite3 libsodium) -lpthread
timeout 300 "$D/bench" "$D" "$N"
