/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the programs (dta-collector, dta-translator, dta-query,
 * dta-gen): key forms, hex, routing, truth files, and small utilities. Not
 * part of libdta's API (the query executor is libdta's: dta/exec.h).
 */
#ifndef DTA_TOOLS_H
#define DTA_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dta/dta.h"

/* ---- keys ---- */

/**
 * tool_parse_key() - a key in one of its natural forms (docs/keys.md):
 *   10.0.0.1:1234->10.0.0.2:80/tcp   IPv4 5-tuple, 13 bytes
 *   [2001:db8::1]:1234->[2001:db8::2]:80/udp   IPv6 5-tuple, 37 bytes
 *   10.0.0.1                          IPv4 address, 4 bytes
 *   42                                integer: 4 bytes big-endian (8 if it
 *                                     does not fit in 32 bits)
 *   0x0a000001                        hex bytes, as written
 * Return: key length, or -1 with a message in @err.
 */
int tool_parse_key(const char *s, uint8_t *key, size_t cap, char *err,
		   size_t errlen);
/**
 * tool_parse_flow() - a flow as INT reports key it (docs/int.md "Keys"):
 * a 5-tuple in tool_parse_key()'s forms, with "->" or "-" between the
 * endpoints (10.0.0.1:1234-10.0.0.2:80/udp,
 * [2001:db8::1]:1-[2001:db8::2]:2/tcp), or the key in hex (0x.., 13 or 37
 * bytes). @key needs room for 37 bytes.
 * Return: 13 (IPv4) or 37 (IPv6), or -1 with a message in @err.
 */
int tool_parse_flow(const char *s, uint8_t *key, size_t cap, char *err,
		    size_t errlen);
/* The natural form of @key when it has one (5-tuples), else 0x hex. */
void tool_format_key(const uint8_t *key, size_t len, char *out, size_t cap);

/* Lowercase hex of @len bytes into @out (cap >= 2 * len + 1). */
void tool_hex(const uint8_t *p, size_t len, char *out);
/* Parse hex (optional 0x); return bytes or -1. */
int tool_unhex(const char *s, uint8_t *out, size_t cap);
/* Decode the hex digits at *@s into @out until a character that is not
 * one (no 0x); *@s then points at it. Return bytes, or -1 for an odd
 * count or more than @cap bytes. */
int tool_hex_run(const char **s, uint8_t *out, size_t cap);

/* ---- captured frames ---- */

/**
 * tool_udp_payload() - the UDP payload of a captured frame sent to @port.
 * @dlt:    the capture's link type: DLT_EN10MB (with 802.1Q/802.1ad tags),
 *          DLT_LINUX_SLL, DLT_RAW or DLT_IPV4.
 * @len:    receives the payload's length (from the UDP header).
 * @src:    receives the IPv4 source address in host order, 0 for IPv6.
 * Return: a pointer into @p, or NULL for other link types, non-UDP, IPv4
 * fragments or headers shorter than 20 bytes, IPv6 extension headers,
 * other ports and truncated captures.
 */
const uint8_t *tool_udp_payload(int dlt, const uint8_t *p, size_t caplen,
				uint16_t port, size_t *len, uint32_t *src);

/* ---- routing: which configured structure a report goes to (the same
 * rule as the translator core, translator.h) ---- */
const struct dta_config_structure *tool_route(const struct dta_config *c,
					      int opcode, unsigned data_len,
					      unsigned path_len, uint32_t list);

/* ---- verify: Append entries read against the entries sent ---- */

/**
 * struct tool_ap_match - matches the entries read from one Append list, in
 * order, against the entries sent to it (dta-gen's truth), in order: an
 * entry read is matched to the first occurrence of the same text at or
 * after the position just past the previous match; the entries sent and
 * skipped over are not found, an entry read with no such occurrence
 * (never sent, or out of order) is wrong.
 *
 * Linear: a hash table from text to its first position and, per position,
 * the next one with the same text. Each entry read costs one lookup plus
 * the same-text positions it steps over, and each position is stepped over
 * at most once, so matching m entries read against n sent takes
 * O(n + m) steps whatever they are (@steps counts them).
 *
 * @exact, @notfound, @wrong: the counts so far (@notfound complete only
 *         after tool_ap_match_finish()).
 */
struct tool_ap_match {
	const char *const *e; /* the entries sent, not owned */
	size_t n, next;
	size_t *same;  /* same[i]: next position with e[i]'s text, or n */
	size_t *first, *cur, nslots; /* hash table: first, current position */
	uint64_t exact, notfound, wrong, steps;
};

/* Index @n entries @e (NUL-terminated, kept by the caller). Return 0 or
 * -ENOMEM. */
int tool_ap_match_init(struct tool_ap_match *m, const char *const *e,
		       size_t n);
/* One entry read: @len bytes at @s. */
void tool_ap_match_entry(struct tool_ap_match *m, const char *s, size_t len);
/* No more entries read: the rest of those sent were not found. */
void tool_ap_match_finish(struct tool_ap_match *m);
void tool_ap_match_free(struct tool_ap_match *m);

/* The geometry of @l and its CRC functions by role, as members of a JSON
 * object (",\"slots\":..,\"crc\":[[role,poly,init,xorout],..]"): what
 * a switch needs to compute what libdta computes (docs/roce.md). */
void tool_switch_layout_json(FILE *f, const struct dta_layout *l);

/* @s as a JSON string, quotes included: always valid UTF-8 JSON (a byte
 * that is a control character or not part of well-formed UTF-8 is
 * written as \u00XX of its value). */
void tool_json_str(FILE *out, const char *s);

/* ---- access lists ---- */

struct tool_net {
	uint32_t net, mask; /* host order; net has no bits outside mask */
};

/* An IPv4 access list such as the collector's rdma_allow:
 * "a.b.c.d[/len]" items separated by commas or blanks. Return the number
 * of networks stored in @out (0 for NULL or ""), -E2BIG for more than
 * @max or a list of 1024 characters or more, -EINVAL for anything
 * malformed (an empty /len included). */
int tool_parse_allow(const char *list, struct tool_net *out, size_t max);

/* Does IPv4 address @addr (host order) lie in one of @n networks? */
bool tool_net_match(const struct tool_net *nets, size_t n, uint32_t addr);

/* ---- dta-gen truth files (dta-query verify) ---- */

enum tool_truth_kind {
	TOOL_TRUTH_NONE, /* blank line or comment */
	TOOL_TRUTH_KW,   /* kw KEYHEX DATAHEX */
	TOOL_TRUTH_PC,   /* pc KEYHEX V,V,.. (the path, hop 0 first) */
	TOOL_TRUTH_KI,   /* ki KEYHEX COUNT */
	TOOL_TRUTH_AP,   /* ap LIST ENTRYHEX (in the order sent) */
	/* INT lines (docs/int.md "Truth lines"); FLOW a 13- or 37-byte key
	 * in hex. */
	TOOL_TRUTH_INT_PATH,  /* int-path FLOW S0,S1,.. (hop 0 first) */
	TOOL_TRUTH_INT_HOP,   /* int-hop FLOW SWITCH LATENCY OCCUPANCY EGRESS_TS */
	TOOL_TRUTH_INT_EVENT, /* int-event FLOW SWITCH IN EG D|Q QUEUE REASON
			       * OCCUPANCY ENTRY */
	TOOL_TRUTH_INT_FLOW,  /* int-flow FLOW N */
	TOOL_TRUTH_INT_QUEUE, /* int-queue SSSSSSSSQQ N */
};

/* Switch ids of an int-path line at most (a hop index is 8 bits). */
#define TOOL_TRUTH_PATH_MAX 255
/* Bytes of an int-event ENTRY (DTA_INT_EVENT_SIZE). */
#define TOOL_TRUTH_EVENT_SIZE 32

struct tool_truth {
	int kind;            /* enum tool_truth_kind */
	char *key;           /* KEYHEX, unchecked (kw, pc, ki), else NULL */
	char *value;         /* the third word, unchecked */
	unsigned data_len;   /* kw: bytes of DATAHEX */
	unsigned hops;       /* pc: values in the path */
	uint64_t count;      /* ki: COUNT */
	uint32_t list;       /* ap: LIST */
	unsigned redundancy; /* comment with redundancy=N: N, else 0 */
	const char *type;    /* comment with type=T: T (in the line), else NULL */
	const char *why;     /* on failure: what is wrong with the line */
	/* INT lines: the key's bytes (FLOW; int-queue: switch id + queue
	 * id, 5 bytes), @count for int-flow and int-queue, and: */
	uint8_t ikey[37];
	unsigned ikey_len;
	uint32_t path[TOOL_TRUTH_PATH_MAX]; /* int-path: @hops switch ids */
	uint32_t switch_id;  /* int-hop, int-event */
	uint32_t latency;    /* int-hop: UINT32_MAX for '-' */
	uint32_t occupancy;  /* int-hop (UINT32_MAX for '-'), int-event */
	uint64_t egress_ts;  /* int-hop: UINT64_MAX for '-' */
	uint16_t in_port, eg_port; /* int-event */
	char event;          /* int-event: 'D' or 'Q' */
	uint8_t queue, reason; /* int-event */
	uint8_t entry[TOOL_TRUTH_EVENT_SIZE]; /* int-event: ENTRY */
};

/* One line of a truth file, split in place (@t points into @line).
 * Return 0, or -1 (@t->why says why) for a line with fewer than three
 * words, an unknown kind, a count, list id or redundancy= that is not a
 * number in range; an INT line with another number of words than its
 * kind has, a FLOW that is not 13 or 37 bytes of hex, a field that is not
 * a number in its range (or '-' where int-hop allows it), a path of no or
 * more than TOOL_TRUTH_PATH_MAX switch ids, an ENTRY that is not 32 bytes
 * of hex. Whether an int-event's fields agree with its ENTRY is not
 * checked here (verify counts a line that disagrees as wrong). */
int tool_truth_parse(char *line, struct tool_truth *t);

/* ---- misc ---- */

uint64_t tool_now_ns(void);
/* The directory part of @path: "." when it has none, "/" for "/name". */
void tool_dir_of(const char *path, char *out, size_t cap);

/*
 * A directory only we may change: created (mode 0700) when missing, then
 * opened with O_DIRECTORY|O_NOFOLLOW (a symlink in its place is refused,
 * not followed) and checked on the open descriptor: owned by our
 * effective uid or root, neither group nor others can write it. Returns
 * the descriptor (close it), or -1 with why filled (the path, what it is
 * and what it must be).
 */
int tool_private_dir(const char *path, char *why, size_t cap);
/* tool_private_dir() of a directory that must exist already: nothing is
 * created; errno says why it failed (ENOENT, ENOTDIR, ELOOP, EPERM...). */
int tool_private_dir_open(const char *path, char *why, size_t cap);

/*
 * A file opened read-only in @dirfd without following a symlink, and
 * refused unless it is a regular file owned by our effective uid or root
 * that neither group nor others can write: someone else could have
 * planted or changed it. Returns the descriptor, or -1 with why filled
 * (-2 when it does not exist).
 */
int tool_private_file(int dirfd, const char *name, char *why, size_t cap);

/* "/proc/self/fd/FD/NAME": a path that resolves through @fd (no name
 * between may be swapped), or "/proc/self/fd/FD" with an empty @name. */
void tool_fd_path(int fd, const char *name, char *out, size_t cap);
/* Split @line in place on blanks into at most @max words. */
int tool_split(char *line, char **w, int max);


/**
 * tool_connect_checked() - connect to a collector socket and check who
 * answers there: the peer's uid (SO_PEERCRED) must be our effective uid,
 * root, or the owner of the socket's directory (docs/security.md).
 * Return: the socket, or -ENAMETOOLONG (path over DTA_SOCKET_PATH_MAX),
 * -EPERM (someone else answers), or the -errno of socket()/connect();
 * with a message in @err (may be NULL).
 */
int tool_connect_checked(const char *path, char *err, size_t errlen);
/* tool_connect_checked() without the message. */
int tool_connect(const char *path);
/* Send @req on @fd, read one response line from @in (a FILE over the same
 * socket) into *@buf (getline() semantics). Return its length or -errno
 * (-ECONNRESET: closed without an answer). Never raises SIGPIPE; when the
 * collector closed the connection, an answer it left (such as "too many
 * clients") is still returned. */
int tool_request(int fd, FILE *in, const char *req, char **buf, size_t *cap);

/* True if two layouts serialise identically (same geometry, functions). */
bool tool_same_layout(const struct dta_layout *a, const struct dta_layout *b);

/* Socket paths, shared-memory names and collector modes come from libdta
 * (dta/config.h: dta_runtime_dir(), dta_default_socket(),
 * dta_config_collector_id(), dta_config_collector_socket(),
 * dta_config_shm_name(), dta_config_collector_mode()), so programs and
 * the client (dta/client.h) cannot disagree. */

/* The message @fmt into @err (@errlen bytes; NULL or 0: none), then
 * @rc: for functions that explain a failure in their caller's buffer
 * (`return tool_fail(err, errlen, -EINVAL, "...", ...)`). */
int tool_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * tool_write_private() - replace file @path with @len bytes of @data,
 * readable and writable by its owner only (mode 0600, whatever the
 * umask): written to a new file created next to it with O_EXCL, then
 * renamed over it, so no reader ever sees another mode or half a file;
 * the file and then its directory are synced, so the new contents
 * survive a crash once this returns 0.
 * Return: 0 or -errno.
 */
int tool_write_private(const char *path, const void *data, size_t len);
/* Share @k of @cs as its collector holds it: a copy with the share's
 * Append list base. */
struct dta_config_structure tool_share(const struct dta_config_structure *cs,
				       unsigned k);

/*
 * tool_epoch_dir() - where collector @i of @cfg writes its closed
 * Key-Increment epochs (docs/layouts.md "Epochs"): its epoch_dir, else
 * SNAPSHOT_DIR/epochs (@snapshot_dir when not NULL: a command-line
 * override; else its snapshot_dir), else /var/lib/dta/epochs.
 * Return: true when epoch_dir was configured, false for a default.
 */
bool tool_epoch_dir(const struct dta_config *cfg, size_t i,
		    const char *snapshot_dir, char *out, size_t cap);

#endif /* DTA_TOOLS_H */
