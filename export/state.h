/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-export's state file (state_dir/cursors, docs/export.md "Cursors and
 * restarts"): its parser, apart from the daemon so that a fuzz harness
 * can take it (fuzz/fuzz_export_state.c). Not part of libdta's API.
 *
 * Lines (each ending in '\n'; '#' starts a comment line; empty lines are
 * skipped):
 *   cursor COLLECTOR STRUCTURE LIST POSITION
 *   lost COLLECTOR STRUCTURE CAUSE N
 * words separated by one space; names 1-255 printable bytes other than
 * space; numbers decimal without sign or leading zeros (LIST fits 32
 * bits, the others 64). Anything else is refused, naming the line.
 */
#ifndef DTA_EXPORT_STATE_H
#define DTA_EXPORT_STATE_H

#include <stddef.h>
#include <stdint.h>

#define EXPORT_STATE_NAME_MAX 255
#define EXPORT_STATE_LINE_MAX 1024 /* bytes of a line, its '\n' included */

struct export_state_cb {
	/* Return 0 or a negative errno, which stops the parse. */
	int (*cursor)(void *ctx, const char *collector, const char *structure,
		      uint32_t list, uint64_t position);
	int (*lost)(void *ctx, const char *collector, const char *structure,
		    const char *cause, uint64_t n);
	void *ctx;
};

/*
 * export_state_parse() - parse @len bytes of @text, calling @cb per line.
 * @line: receives the number (from 1) of the line refused, or 0.
 * Return: 0; -EINVAL (a malformed line, or text not ending in '\n'); a
 * callback's error.
 */
int export_state_parse(const char *text, size_t len,
		       const struct export_state_cb *cb, unsigned *line);

#endif
