/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration file shared by dta-collector, dta-translator and
 * dta-query: which structures exist (name, primitive, geometry, hashing)
 * and the programs' settings. The format and every key are described in
 * docs/config.md; in short:
 *
 *   # comment
 *   [collector]
 *   socket = /run/dta/dta.sock
 *
 *   [structure flows]
 *   primitive = key-write
 *   memory = 64M            # or slots = 4194304
 *   data = 20
 *
 * Unknown sections and keys, repeated keys, bad values and impossible
 * geometries are errors with a line number: a typo never silently falls
 * back to a default. Every key of [collector], [collector NAME] and
 * [translator] has a type (yes/no, number with a range, duration,
 * octal mode, address, list, one of a set; docs/config.md "Value types")
 * checked at load time, so a program that reads a value with
 * dta_config_get() only ever sees one of that type.
 */
#ifndef DTA_CONFIG_H
#define DTA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"
#include "dta/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DTA_CONFIG_NAME_MAX 48 /* structure names: [A-Za-z0-9_-], 1..47 */
#define DTA_CONFIG_MAX_STRUCTURES 64
#define DTA_CONFIG_MAX_COLLECTORS 16 /* [collector] and [collector NAME] */

struct dta_schema; /* dta/schema.h */

/**
 * struct dta_config_structure - one [structure NAME] section.
 * @name:      the structure's name (also its shared-memory object suffix).
 * @layout:    its geometry and hash functions, ready to use.
 * @list_base: Append: report list id of the structure's list 0.
 * @values:    Postcarding: the known value set V (sorted, unique), from the
 *             "values" key; NULL when not given.
 * @nvalues:   entries in @values.
 * @ncollectors: how many collectors hold a share of it (the "collector"
 *             key; 1 by default). With more than one the structure is
 *             partitioned: Key-Write, Postcarding and Key-Increment by
 *             dta_shard() of the key, Append by list id (share k takes list
 *             ids @list_base + k * lists ..). Every share has @layout.
 * @collectors: the collectors (indices for dta_config_collector_name()),
 *             share k on @collectors[k].
 * @schema:    what its values mean (Key-Write data, Append entries): the
 *             "schema" key (its size is the data or entry size), else the
 *             built-in schema of an [int] role the structure has
 *             (dta_schema_int(): path, hops, events), else NULL. Owned by
 *             the configuration.
 */
struct dta_config_structure {
	char name[DTA_CONFIG_NAME_MAX];
	struct dta_layout layout;
	uint32_t list_base;
	uint32_t *values;
	size_t nvalues;
	unsigned ncollectors;
	uint8_t collectors[DTA_CONFIG_MAX_COLLECTORS];
	const struct dta_schema *schema;
	/* "readers": who may read it remotely, as written (comma-separated
	 * certificate names or *); "" when not given: every authenticated
	 * client (docs/security.md "Remote queries"). */
	char readers[256];
	/* "epoch": Key-Increment epoch length in seconds (0: no epochs;
	 * docs/layouts.md "Epochs"). */
	uint32_t epoch_s;
};

struct dta_config; /* opaque */

/* Whether @name may name a remote reader: 1-64 of [A-Za-z0-9._@-]. */
DTA_API bool dta_config_reader_valid(const char *name);
/* Whether the client whose certificate is named @reader may read @cs
 * remotely: its "readers" list holds @reader or *, or it has no list. */
DTA_API bool dta_config_may_read(const struct dta_config_structure *cs,
				 const char *reader);

/**
 * dta_config_parse() - parse configuration text.
 * @text, @len: the text (need not be NUL-terminated).
 * @err, @errlen: on -DTA_E_MALFORMED receives "line N: KEY: why" for a
 *   bad value, "line N: why" for other mistakes on line N, or "why" for
 *   mistakes between sections (may be NULL; truncated to @errlen).
 * Return: 0; -DTA_E_MALFORMED for any syntax or value error; -EINVAL for
 * NULL arguments; -ENOMEM. On error *@out is NULL.
 * Thread-safe (no shared state).
 */
DTA_API int dta_config_parse(const char *text, size_t len,
			     struct dta_config **out, char *err, size_t errlen);

/*
 * dta_config_parse() on a file's contents; also -errno from opening or
 * reading it and -EFBIG above 16 MiB. The error text of -DTA_E_MALFORMED
 * names the file: "PATH:N: KEY: why" (or "PATH: why").
 */
DTA_API int dta_config_load(const char *path, struct dta_config **out,
			    char *err, size_t errlen);

DTA_API void dta_config_destroy(struct dta_config *c);

DTA_API size_t dta_config_count(const struct dta_config *c);
DTA_API const struct dta_config_structure *
dta_config_structure(const struct dta_config *c, size_t i);
/* By name, or NULL. */
DTA_API const struct dta_config_structure *
dta_config_find(const struct dta_config *c, const char *name);

/**
 * dta_config_get() - a setting of the [collector], [collector NAME],
 * [translator] or [int] section (@section "collector", "collector NAME",
 * "translator" or "int").
 * Return: the value as written, or NULL when not set (the program applies
 * its documented default).
 */
DTA_API const char *dta_config_get(const struct dta_config *c,
				   const char *section, const char *key);

/*
 * Collectors: index 0 is the unnamed [collector] section (present even when
 * not written), then each [collector NAME] in file order.
 */
DTA_API size_t dta_config_collectors(const struct dta_config *c);
/* "" for index 0, NAME otherwise; NULL when out of range. */
DTA_API const char *dta_config_collector_name(const struct dta_config *c,
					      size_t i);
/* Index of collector @name (NULL or "" is the unnamed one), or -ENOENT. */
DTA_API int dta_config_collector_find(const struct dta_config *c,
				      const char *name);
/* A setting of collector @i's section, or NULL when not set. */
DTA_API const char *dta_config_collector_get(const struct dta_config *c,
					     size_t i, const char *key);
/* Share of structure @cs that collector @i holds, or -ENOENT. */
DTA_API int dta_config_share(const struct dta_config_structure *cs, size_t i);
/* Append: the report list id of list 0 of share @k of @cs (@list_base + k
 * * lists); @list_base for other primitives. */
DTA_API uint32_t dta_config_share_list_base(const struct dta_config_structure *cs,
					    unsigned k);

/*
 * Where a configuration's collectors are (docs/config.md, [collector]):
 * their sockets and shared-memory objects, the names that collectors,
 * translators, dta-query and the client (dta/client.h) must agree on.
 */

/* Where default sockets live when root and nothing else is said. */
#define DTA_RUN_DIR "/run/dta"
/* The longest Unix socket path (sockaddr_un.sun_path, NUL excluded). */
#define DTA_SOCKET_PATH_MAX 107

/**
 * dta_runtime_dir() - the directory of default sockets, the first of:
 * $RUNTIME_DIRECTORY (its first entry; systemd's RuntimeDirectory=),
 * DTA_RUN_DIR when we are root or it exists, $XDG_RUNTIME_DIR. Never a
 * world-writable directory such as /tmp.
 * Return: 0; -ENOENT when none applies; -ENAMETOOLONG when over @cap.
 */
DTA_API int dta_runtime_dir(char *out, size_t cap);

/**
 * dta_default_socket() - the default socket of collector @name:
 * dta_runtime_dir()/dta-NAME.sock.
 * Return: 0 or dta_runtime_dir()'s error; -ENAMETOOLONG when the path
 * does not fit @cap or a Unix socket address (DTA_SOCKET_PATH_MAX).
 */
DTA_API int dta_default_socket(const char *name, char *out, size_t cap);

/* Collector @i's name, its shared-memory prefix: its "name" key, else its
 * section's NAME, else "dta"; NULL when @i is out of range. */
DTA_API const char *dta_config_collector_id(const struct dta_config *c,
					    size_t i);

/* Collector @i's query socket: its "socket" key, else dta_default_socket()
 * of dta_config_collector_id(). Return as dta_default_socket(); -ENOENT
 * when @i is out of range. */
DTA_API int dta_config_collector_socket(const struct dta_config *c, size_t i,
					char *out, size_t cap);

/**
 * dta_config_shm_name() - the POSIX shared-memory name of structure @st of
 * collector @coll (dta_config_collector_id()): "/dta-COLL.ST".
 * Return: 0; -ENAMETOOLONG when it does not fit @cap or is longer than
 * NAME_MAX - 1 bytes (what a region's shm name may be): never a truncated
 * name, which two structures could share.
 */
DTA_API int dta_config_shm_name(const char *coll, const char *st, char *out,
				size_t cap);

/* Collector @i's octal mode key @key ("socket_mode", "shm_mode"; @def when
 * absent) in *@mode. Return 0, or -EINVAL (not octal, or @i out of
 * range). */
DTA_API int dta_config_collector_mode(const struct dta_config *c, size_t i,
				      const char *key, unsigned def,
				      unsigned *mode);

/**
 * dta_config_int_map() - the [int] section as a map for
 * dta_translator_set_int_map() (docs/int.md "Configuration").
 * @m:    filled in; its role fields hold *configuration* structure indices
 *        (for dta_config_structure()): the caller replaces each with the
 *        index dta_translator_add() gave that structure (share 0).
 *        Without [int], every role is DTA_INT_MAP_NONE.
 * @port: if not NULL, the INT UDP port ("port", default
 *        DTA_INT_V05_UDP_PORT, 32766).
 * Return: 1 when the file has an [int] section, 0 when not, -EINVAL.
 * The values were checked by dta_config_parse().
 */
struct dta_int_map;
DTA_API int dta_config_int_map(const struct dta_config *c,
			       struct dta_int_map *m, uint16_t *port);

/**
 * dta_parse_size() - parse an unsigned integer with an optional binary
 * suffix K, M, G, T (x1024^n), or 0x hex. Return: 0, -EINVAL.
 */
DTA_API int dta_parse_size(const char *s, uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif /* DTA_CONFIG_H */
