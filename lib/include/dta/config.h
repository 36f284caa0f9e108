/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration file shared by dta-collector, dta-translator and
 * dta-query: which structures exist (name, primitive, geometry, hashing)
 * and the programs' settings. The format and every key are described in
 * docs/config.md; in short:
 *
 *   # comment
 *   [collector]
 *   socket = /tmp/dta.sock
 *
 *   [structure flows]
 *   primitive = key-write
 *   memory = 64M            # or slots = 4194304
 *   data = 20
 *
 * Unknown sections and keys, repeated keys, bad numbers and impossible
 * geometries are errors with a line number: a typo never silently falls
 * back to a default.
 */
#ifndef DTA_CONFIG_H
#define DTA_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"
#include "dta/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DTA_CONFIG_NAME_MAX 48 /* structure names: [A-Za-z0-9_-], 1..47 */
#define DTA_CONFIG_MAX_STRUCTURES 64

/**
 * struct dta_config_structure - one [structure NAME] section.
 * @name:      the structure's name (also its shared-memory object suffix).
 * @layout:    its geometry and hash functions, ready to use.
 * @list_base: Append: report list id of the structure's list 0.
 * @values:    Postcarding: the known value set V (sorted, unique), from the
 *             "values" key; NULL when not given.
 * @nvalues:   entries in @values.
 */
struct dta_config_structure {
	char name[DTA_CONFIG_NAME_MAX];
	struct dta_layout layout;
	uint32_t list_base;
	uint32_t *values;
	size_t nvalues;
};

struct dta_config; /* opaque */

/**
 * dta_config_parse() - parse configuration text.
 * @text, @len: the text (need not be NUL-terminated).
 * @err, @errlen: on failure receives "line N: what is wrong" (may be NULL).
 * Return: 0; -DTA_E_MALFORMED for any syntax or value error; -EINVAL for
 * NULL arguments; -ENOMEM.
 */
DTA_API int dta_config_parse(const char *text, size_t len,
			     struct dta_config **out, char *err, size_t errlen);

/* dta_config_parse() on a file's contents; also -errno from reading it. */
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
 * dta_config_get() - a setting of the [collector] or [translator] section.
 * Return: the value as written, or NULL when not set (the program applies
 * its documented default).
 */
DTA_API const char *dta_config_get(const struct dta_config *c,
				   const char *section, const char *key);

/**
 * dta_parse_size() - parse an unsigned integer with an optional binary
 * suffix K, M, G, T (x1024^n), or 0x hex. Return: 0, -EINVAL.
 */
DTA_API int dta_parse_size(const char *s, uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif /* DTA_CONFIG_H */
