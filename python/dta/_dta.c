/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * _dta: the CPython binding of libdta's query client (dta/client.h).
 *
 * Deliberately thin: every decision (routing, framing, voting, decoding)
 * is libdta's. This module moves arguments across and raises dta.Error;
 * dta/__init__.py shapes the answers into numpy arrays. Output arrays are
 * allocated by the Python side and passed in as writable buffers, so the
 * module needs no numpy headers and the library writes straight into the
 * arrays the caller gets back.
 *
 * The GIL is released around every library call. A client handle is used
 * by one thread at a time (dta/client.h), so each Client carries a lock
 * taken (with the GIL released) around its calls: Python threads sharing
 * one Client queue up instead of racing inside the library.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dta/client.h"
#include "dta/config.h"
#include "dta/dta.h"
#include "dta/exec.h"
#include "dta/hash.h"
#include "dta/keywrite.h"
#include "dta/layout.h"
#include "dta/postcard.h"
#include "dta/schema.h"
#include "dta/wire.h"

static PyObject *dta_error; /* dta.Error, a subclass of OSError */

/* Raise dta.Error(errno, message) for libdta code @rc (negative). */
static PyObject *raise_code(int rc, const char *msg)
{
	PyObject *args;
	int e = rc < 0 ? -rc : rc;

	if (!msg || !*msg)
		msg = dta_strerror(e);
	args = Py_BuildValue("(is)", e, msg);
	if (args) {
		PyErr_SetObject(dta_error, args);
		Py_DECREF(args);
	}
	return NULL;
}

/* dta.Error(ENOENT) naming structure @name. */
static PyObject *raise_no_structure(int rc, const char *name)
{
	char msg[DTA_CONFIG_NAME_MAX + 32];

	snprintf(msg, sizeof(msg), "no structure '%.*s'", DTA_CONFIG_NAME_MAX,
		 name);
	return raise_code(rc, msg);
}

/* ---------------------------------------------------------------- Client */

struct client_obj {
	PyObject_HEAD
	struct dta_client *c;
	PyThread_type_lock lock;
};

struct cursor_obj {
	PyObject_HEAD
	struct client_obj *client; /* strong reference */
	struct dta_client_cursor *cur;
	size_t entry_size;
};

static PyTypeObject client_type;
static PyTypeObject cursor_type;

/*
 * rc = expr, with the GIL released and the client's lock held, unless the
 * client was closed meanwhile (rc = -EBADF then: another thread's close()
 * may have run between our check and the lock). self->c is written only
 * with both the GIL and the lock held, so reading it under either is safe.
 */
#define CLIENT_CALL(cl, rc, expr)                                             \
	do {                                                                  \
		Py_BEGIN_ALLOW_THREADS                                        \
		PyThread_acquire_lock((cl)->lock, WAIT_LOCK);                 \
		if (!(cl)->c)                                                 \
			(rc) = -EBADF;                                        \
		else                                                          \
			(rc) = (expr);                                        \
		PyThread_release_lock((cl)->lock);                            \
		Py_END_ALLOW_THREADS                                          \
	} while (0)

static int client_open_check(struct client_obj *self)
{
	if (self->c)
		return 0;
	raise_code(-EBADF, "the client is closed");
	return -1;
}

static PyObject *client_raise(struct client_obj *self, int rc)
{
	if (!self->c)
		return raise_code(-EBADF, "the client is closed");
	return raise_code(rc, dta_client_error(self->c));
}

static int client_init(struct client_obj *self, PyObject *args,
		       PyObject *kw)
{
	static char *kwlist[] = {"target", "flags", "timeout_ms", NULL};
	struct dta_client_opts o = {.sz = sizeof(o)};
	const char *target;
	char err[512] = "";
	struct dta_client *c = NULL;
	unsigned flags = 0;
	int rc, timeout_ms = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|Ii", kwlist, &target,
					 &flags, &timeout_ms))
		return -1;
	/* Once only: a handle reopened under its cursors would give them
	 * another handle's state. */
	if (self->lock) {
		PyErr_SetString(PyExc_RuntimeError,
				"a Client is initialised once; connect again");
		return -1;
	}
	self->lock = PyThread_allocate_lock();
	if (!self->lock) {
		PyErr_NoMemory();
		return -1;
	}
	o.flags = flags;
	o.timeout_ms = timeout_ms;
	Py_BEGIN_ALLOW_THREADS
	rc = dta_client_open(target, &o, &c, err, sizeof(err));
	Py_END_ALLOW_THREADS
	if (rc < 0) {
		raise_code(rc, err);
		return -1;
	}
	self->c = c;
	return 0;
}

static PyObject *client_close(struct client_obj *self, PyObject *unused)
{
	struct dta_client *c;

	if (!self->c)
		Py_RETURN_NONE;
	/* Wait for a call in progress on another thread, then clear the
	 * handle holding both the GIL and the lock (CLIENT_CALL). Taking
	 * the GIL back while holding the lock cannot deadlock: no thread
	 * waits for the GIL while it holds the lock. */
	Py_BEGIN_ALLOW_THREADS
	PyThread_acquire_lock(self->lock, WAIT_LOCK);
	Py_END_ALLOW_THREADS
	c = self->c;
	self->c = NULL; /* its cursors are closed with it */
	Py_BEGIN_ALLOW_THREADS
	dta_client_close(c);
	PyThread_release_lock(self->lock);
	Py_END_ALLOW_THREADS
	Py_RETURN_NONE;
}

static void client_dealloc(struct client_obj *self)
{
	dta_client_close(self->c);
	if (self->lock)
		PyThread_free_lock(self->lock);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *client_closed(struct client_obj *self, void *unused)
{
	return PyBool_FromLong(self->c == NULL);
}

static int dict_set(PyObject *d, const char *k, PyObject *v)
{
	int rc;

	if (!v)
		return -1;
	rc = PyDict_SetItemString(d, k, v);
	Py_DECREF(v);
	return rc;
}

static PyObject *schema_fields(const struct dta_schema *s)
{
	PyObject *list = PyList_New(0);

	if (!list)
		return NULL;
	for (unsigned i = 0; i < s->nfields; i++) {
		const struct dta_field *f = &s->f[i];
		PyObject *t = Py_BuildValue(
			"{s:s,s:i,s:O,s:i,s:i,s:k,s:k}", "name", f->name,
			"type", (int)f->type, "little", f->little ? Py_True : Py_False,
			"count", (int)f->count, "time", (int)f->time, "offset",
			(unsigned long)f->offset, "size", (unsigned long)f->size);

		if (!t || PyList_Append(list, t) < 0) {
			Py_XDECREF(t);
			Py_DECREF(list);
			return NULL;
		}
		Py_DECREF(t);
	}
	return list;
}

/* The schema as a dict {"text", "size", "time", "fields"}, or None. */
static PyObject *schema_dict(const struct dta_schema *s)
{
	char text[DTA_SCHEMA_TEXT_MAX];
	PyObject *d;
	int n;

	if (!s || !s->nfields)
		Py_RETURN_NONE;
	n = dta_schema_format(s, text, sizeof(text));
	if (n < 0)
		return raise_code(n, "formatting a schema");
	d = PyDict_New();
	if (!d)
		return NULL;
	if (dict_set(d, "text", PyUnicode_FromStringAndSize(text, n)) < 0 ||
	    dict_set(d, "size", PyLong_FromUnsignedLong(s->size)) < 0 ||
	    dict_set(d, "time", PyLong_FromLong(s->time)) < 0 ||
	    dict_set(d, "fields", schema_fields(s)) < 0) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

static PyObject *geometry(const struct dta_layout *l)
{
	switch (l->primitive) {
	case DTA_PRIM_KEY_WRITE:
		return Py_BuildValue("{s:K,s:k,s:i,s:i,s:i}", "slots",
				     (unsigned long long)l->g.kw.slots,
				     "slot_size", (unsigned long)l->g.kw.slot_size,
				     "data_len", (int)l->g.kw.data_len,
				     "csum_bytes", (int)l->g.kw.csum_bytes,
				     "max_redundancy", (int)l->g.kw.max_redundancy);
	case DTA_PRIM_POSTCARD:
		return Py_BuildValue("{s:K,s:k,s:i,s:i,s:i}", "chunks",
				     (unsigned long long)l->g.pc.chunks,
				     "chunk_size", (unsigned long)l->g.pc.chunk_size,
				     "hops", (int)l->g.pc.hops,
				     "slot_bytes", (int)l->g.pc.slot_bytes,
				     "redundancy", (int)l->g.pc.redundancy);
	case DTA_PRIM_APPEND:
		return Py_BuildValue("{s:k,s:k,s:k,s:i,s:i,s:i}", "lists",
				     (unsigned long)l->g.ap.lists,
				     "ring_batches", (unsigned long)l->g.ap.ring_batches,
				     "frame_size", (unsigned long)l->g.ap.frame_size,
				     "batch_entries", (int)l->g.ap.batch_entries,
				     "entry_size", (int)l->g.ap.entry_size,
				     "flags", (int)l->g.ap.flags);
	case DTA_PRIM_KEY_INCREMENT:
		return Py_BuildValue("{s:K,s:i,s:i}", "width",
				     (unsigned long long)l->g.ki.width, "rows",
				     (int)l->g.ki.rows, "banks", (int)l->g.ki.banks);
	}
	return PyDict_New();
}

static PyObject *structure_dict(const struct dta_client_structure *s)
{
	const struct dta_layout *l = &s->layout;
	PyObject *d = PyDict_New(), *values;

	if (!d)
		return NULL;
	if (s->values) {
		values = PyTuple_New((Py_ssize_t)s->nvalues);
		if (!values)
			goto fail;
		for (size_t i = 0; i < s->nvalues; i++) {
			PyObject *v = PyLong_FromUnsignedLong(s->values[i]);

			if (!v) {
				Py_DECREF(values);
				goto fail;
			}
			PyTuple_SET_ITEM(values, (Py_ssize_t)i, v);
		}
	} else {
		values = Py_NewRef(Py_None);
	}
	if (dict_set(d, "values", values) < 0 ||
	    dict_set(d, "name", PyUnicode_FromString(s->name)) < 0 ||
	    dict_set(d, "primitive", PyLong_FromLong(l->primitive)) < 0 ||
	    dict_set(d, "data_size", PyLong_FromUnsignedLongLong(l->data_size)) < 0 ||
	    dict_set(d, "geometry", geometry(l)) < 0 ||
	    dict_set(d, "schema", schema_dict(s->schema)) < 0 ||
	    dict_set(d, "shares", PyLong_FromUnsignedLong(s->shares)) < 0 ||
	    dict_set(d, "lists", PyLong_FromUnsignedLong(s->lists)) < 0 ||
	    dict_set(d, "list_base", PyLong_FromUnsignedLong(s->list_base)) < 0)
		goto fail;
	return d;
fail:
	Py_DECREF(d);
	return NULL;
}

static PyObject *client_structures(struct client_obj *self, PyObject *unused)
{
	PyObject *list;
	size_t n;

	if (client_open_check(self) < 0)
		return NULL;
	n = dta_client_count(self->c);
	list = PyList_New((Py_ssize_t)n);
	if (!list)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct dta_client_structure *s =
			dta_client_structure(self->c, i);
		PyObject *d;

		if (!s) {
			Py_DECREF(list);
			return raise_code(-EIO, "structure vanished");
		}
		d = structure_dict(s);
		if (!d) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, d);
	}
	return list;
}

/*
 * Buffers: keys (read-only, contiguous, @n * @klen bytes) and outputs
 * (writable, contiguous, at least the size needed).
 */
static int get_keys(PyObject *o, Py_buffer *b, Py_ssize_t klen, size_t *n)
{
	if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS) < 0)
		return -1;
	if (klen < 1 || klen > DTA_KEY_MAX) {
		PyErr_Format(PyExc_ValueError, "key length %zd is not 1..%d",
			     klen, DTA_KEY_MAX);
		goto fail;
	}
	if (b->len % klen) {
		PyErr_Format(PyExc_ValueError,
			     "%zd bytes of keys are not a whole number of "
			     "%zd-byte keys", b->len, klen);
		goto fail;
	}
	*n = (size_t)(b->len / klen);
	return 0;
fail:
	PyBuffer_Release(b);
	return -1;
}

static int get_out(PyObject *o, Py_buffer *b, size_t need, const char *what)
{
	if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
		return -1;
	if ((size_t)b->len < need) {
		PyErr_Format(PyExc_ValueError, "%s buffer: %zd bytes, need %zu",
			     what, b->len, need);
		PyBuffer_Release(b);
		return -1;
	}
	return 0;
}

/* kw_get(name, keys, klen, status_out, data_out, redundancy=0,
 *        threshold=0, votes_out=None, found_out=None): status_out n bytes
 *        (enum dta_query_status), data_out n * data_len bytes, votes_out n
 *        uint32 and found_out n bools (optional). */
static PyObject *client_kw_get(struct client_obj *self, PyObject *args,
			       PyObject *kw)
{
	static char *kwlist[] = {"name", "keys", "klen", "status", "data",
				 "redundancy", "threshold", "votes", "found",
				 NULL};
	struct dta_kw_query_opts o = {0};
	PyObject *keys, *status, *data, *votes = Py_None, *found = Py_None;
	PyObject *ret = NULL;
	Py_buffer kb, sb, db, vb = {0}, fb = {0};
	struct dta_kw_result *res = NULL;
	Py_ssize_t klen;
	const char *name;
	size_t n;
	int rc, idx;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "sOnOO|IIOO", kwlist, &name,
					 &keys, &klen, &status, &data,
					 &o.redundancy, &o.threshold, &votes,
					 &found))
		return NULL;
	if (client_open_check(self) < 0)
		return NULL;
	idx = dta_client_find(self->c, name);
	if (idx < 0)
		return raise_no_structure(idx, name);
	if (get_keys(keys, &kb, klen, &n) < 0)
		return NULL;
	if (get_out(status, &sb, n, "status") < 0)
		goto release_keys;
	{
		const struct dta_client_structure *s =
			dta_client_structure(self->c, (size_t)idx);
		size_t dl = s && s->layout.primitive == DTA_PRIM_KEY_WRITE ?
				    s->layout.g.kw.data_len : 0;

		if (get_out(data, &db, n * dl, "data") < 0)
			goto release_status;
	}
	if (votes != Py_None &&
	    get_out(votes, &vb, n * sizeof(uint32_t), "votes") < 0)
		goto release_data;
	if (found != Py_None && get_out(found, &fb, n, "found") < 0)
		goto release_votes;
	res = PyMem_RawMalloc((n ? n : 1) * sizeof(*res));
	if (!res) {
		PyErr_NoMemory();
		goto release_found;
	}
	CLIENT_CALL(self, rc, dta_client_kw_get(self->c, name, kb.buf,
						(size_t)klen, n, &o, res,
						db.buf));
	if (rc < 0) {
		client_raise(self, rc);
		goto free_res;
	}
	for (size_t i = 0; i < n; i++) {
		((uint8_t *)sb.buf)[i] = (uint8_t)res[i].status;
		if (vb.buf)
			((uint32_t *)vb.buf)[i] = res[i].votes;
		if (fb.buf) /* numpy bool: one byte, 0 or 1 */
			((uint8_t *)fb.buf)[i] = res[i].status == DTA_Q_FOUND;
	}
	ret = Py_NewRef(Py_None);
free_res:
	PyMem_RawFree(res);
release_found:
	if (fb.obj)
		PyBuffer_Release(&fb);
release_votes:
	if (vb.obj)
		PyBuffer_Release(&vb);
release_data:
	PyBuffer_Release(&db);
release_status:
	PyBuffer_Release(&sb);
release_keys:
	PyBuffer_Release(&kb);
	return ret;
}

/* pc_get(name, keys, klen, status_out, len_out, paths_out): status_out
 * and len_out n bytes, paths_out n * DTA_MAX_HOPS uint32 (host order). */
static PyObject *client_pc_get(struct client_obj *self, PyObject *args)
{
	PyObject *keys, *status, *lens, *paths, *ret = NULL;
	Py_buffer kb, sb, lb, pb;
	struct dta_pc_result *res;
	Py_ssize_t klen;
	const char *name;
	size_t n;
	int rc;

	if (!PyArg_ParseTuple(args, "sOnOOO", &name, &keys, &klen, &status,
			      &lens, &paths))
		return NULL;
	if (client_open_check(self) < 0)
		return NULL;
	if (get_keys(keys, &kb, klen, &n) < 0)
		return NULL;
	if (get_out(status, &sb, n, "status") < 0)
		goto release_keys;
	if (get_out(lens, &lb, n, "lengths") < 0)
		goto release_status;
	if (get_out(paths, &pb, n * DTA_MAX_HOPS * sizeof(uint32_t), "paths") < 0)
		goto release_lens;
	res = PyMem_RawMalloc((n ? n : 1) * sizeof(*res));
	if (!res) {
		PyErr_NoMemory();
		goto release_paths;
	}
	CLIENT_CALL(self, rc, dta_client_pc_get(self->c, name, kb.buf,
						(size_t)klen, n, res));
	if (rc < 0) {
		client_raise(self, rc);
		goto free_res;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned len = res[i].status == DTA_Q_FOUND ? res[i].path_len : 0;

		((uint8_t *)sb.buf)[i] = (uint8_t)res[i].status;
		((uint8_t *)lb.buf)[i] = (uint8_t)len;
		memset((uint32_t *)pb.buf + i * DTA_MAX_HOPS, 0,
		       DTA_MAX_HOPS * sizeof(uint32_t));
		memcpy((uint32_t *)pb.buf + i * DTA_MAX_HOPS, res[i].values,
		       len * sizeof(uint32_t));
	}
	ret = Py_NewRef(Py_None);
free_res:
	PyMem_RawFree(res);
release_paths:
	PyBuffer_Release(&pb);
release_lens:
	PyBuffer_Release(&lb);
release_status:
	PyBuffer_Release(&sb);
release_keys:
	PyBuffer_Release(&kb);
	return ret;
}

/* ki_get(name, keys, klen, bank, counts_out): counts_out n uint64. */
static PyObject *client_ki_get(struct client_obj *self, PyObject *args)
{
	PyObject *keys, *counts, *ret = NULL;
	Py_buffer kb, cb;
	Py_ssize_t klen;
	const char *name;
	unsigned bank;
	size_t n;
	int rc;

	if (!PyArg_ParseTuple(args, "sOnIO", &name, &keys, &klen, &bank,
			      &counts))
		return NULL;
	if (client_open_check(self) < 0)
		return NULL;
	if (get_keys(keys, &kb, klen, &n) < 0)
		return NULL;
	if (get_out(counts, &cb, n * sizeof(uint64_t), "counts") < 0)
		goto release_keys;
	CLIENT_CALL(self, rc, dta_client_ki_get(self->c, name, kb.buf,
						(size_t)klen, n, bank, cb.buf));
	if (rc < 0)
		client_raise(self, rc);
	else
		ret = Py_NewRef(Py_None);
	PyBuffer_Release(&cb);
release_keys:
	PyBuffer_Release(&kb);
	return ret;
}

/* ki_total(name, bank) -> total over every share (dta_client_ki_total). */
static PyObject *client_ki_total(struct client_obj *self, PyObject *args)
{
	const char *name;
	unsigned bank;
	uint64_t total = 0;
	int rc;

	if (!PyArg_ParseTuple(args, "sI", &name, &bank) ||
	    client_open_check(self) < 0)
		return NULL;
	CLIENT_CALL(self, rc, dta_client_ki_total(self->c, name, bank, &total));
	if (rc < 0)
		return client_raise(self, rc);
	return PyLong_FromUnsignedLongLong(total);
}

/* partial() -> (mask, [names], message): dta_client_partial() of the
 * last call, the names of the missing collectors, the client's message. */
static PyObject *client_partial(struct client_obj *self, PyObject *unused)
{
	PyObject *names, *ret;
	uint32_t m = 0;

	(void)unused;
	if (client_open_check(self) < 0)
		return NULL;
	PyThread_acquire_lock(self->lock, WAIT_LOCK);
	dta_client_partial(self->c, &m);
	names = PyList_New(0);
	for (unsigned i = 0; names && i < 32; i++) {
		PyObject *n;

		if (!(m & (1u << i)))
			continue;
		n = PyUnicode_FromString(dta_client_collector_name(self->c, i)
						 ? dta_client_collector_name(self->c, i)
						 : "?");
		if (!n || PyList_Append(names, n) < 0) {
			Py_XDECREF(n);
			Py_CLEAR(names);
			break;
		}
		Py_DECREF(n);
	}
	ret = names ? Py_BuildValue("(kNs)", (unsigned long)m, names,
				    dta_client_error(self->c))
		    : NULL;
	PyThread_release_lock(self->lock);
	return ret;
}

/* collector_name(i) -> str or None. */
static PyObject *client_collector_name(struct client_obj *self,
				       PyObject *args)
{
	const char *n;
	unsigned i;

	if (!PyArg_ParseTuple(args, "I", &i) || client_open_check(self) < 0)
		return NULL;
	n = dta_client_collector_name(self->c, i);
	if (!n)
		Py_RETURN_NONE;
	return PyUnicode_FromString(n);
}

/* ap_open(name, list, start): a Cursor; start 0 oldest, 1 now. */
static PyObject *client_ap_open(struct client_obj *self, PyObject *args)
{
	struct dta_client_cursor *cur = NULL;
	const struct dta_client_structure *s;
	struct cursor_obj *co;
	const char *name;
	unsigned long list;
	int from, rc, idx;

	if (!PyArg_ParseTuple(args, "ski", &name, &list, &from))
		return NULL;
	if (client_open_check(self) < 0)
		return NULL;
	if (list > UINT32_MAX) {
		PyErr_SetString(PyExc_OverflowError, "list over 2^32 - 1");
		return NULL;
	}
	idx = dta_client_find(self->c, name);
	if (idx < 0)
		return raise_no_structure(idx, name);
	s = dta_client_structure(self->c, (size_t)idx);
	CLIENT_CALL(self, rc, dta_client_ap_open(self->c, name, (uint32_t)list,
						 from, &cur));
	if (rc < 0)
		return client_raise(self, rc);
	co = PyObject_New(struct cursor_obj, &cursor_type);
	if (!co) {
		CLIENT_CALL(self, rc, (dta_client_ap_close(cur), 0));
		return NULL;
	}
	co->client = (struct client_obj *)Py_NewRef((PyObject *)self);
	co->cur = cur;
	co->entry_size = s->layout.g.ap.entry_size;
	return (PyObject *)co;
}

static PyObject *client_request(struct client_obj *self, PyObject *args)
{
	const char *req;
	char *answer = NULL;
	unsigned collector;
	PyObject *ret;
	int rc;

	if (!PyArg_ParseTuple(args, "Is", &collector, &req))
		return NULL;
	if (client_open_check(self) < 0)
		return NULL;
	CLIENT_CALL(self, rc, dta_client_request(self->c, collector, req,
						 &answer));
	if (rc < 0)
		return client_raise(self, rc);
	ret = PyUnicode_DecodeUTF8(answer, (Py_ssize_t)strlen(answer),
				   "replace");
	free(answer);
	return ret;
}

/* wait(name, seq, timeout_ms) -> (moved, seq): dta_client_wait(). */
static PyObject *client_wait(struct client_obj *self, PyObject *args)
{
	const char *name;
	unsigned long seq_in;
	uint32_t seq;
	int ms, rc;

	if (!PyArg_ParseTuple(args, "ski", &name, &seq_in, &ms))
		return NULL;
	if (client_open_check(self) < 0)
		return NULL;
	seq = (uint32_t)seq_in;
	CLIENT_CALL(self, rc, dta_client_wait(self->c, name, &seq, ms));
	if (rc < 0)
		return client_raise(self, rc);
	return Py_BuildValue("(Ok)", rc ? Py_True : Py_False,
			     (unsigned long)seq);
}

/* ---- INT questions (dta/int_query.h) ---- */

static const char *const role_keys[] = { "path_kw", "path_pc", "hop_kw",
					 "events_ap", "flow_ki", "queue_ki" };

static char *role_field(struct dta_int_roles *r, unsigned i)
{
	char *f[] = { r->path_kw, r->path_pc, r->hop_kw, r->events_ap,
		      r->flow_ki, r->queue_ki };

	return f[i];
}

/* A roles dict (int_roles()) as the library's struct. */
static int roles_from(PyObject *d, struct dta_int_roles *r)
{
	PyObject *v;

	memset(r, 0, sizeof(*r));
	r->sz = sizeof(*r);
	if (!PyDict_Check(d)) {
		PyErr_SetString(PyExc_TypeError, "roles must be a dict");
		return -1;
	}
	for (unsigned i = 0; i < 6; i++) {
		const char *name;

		v = PyDict_GetItemString(d, role_keys[i]);
		if (!v || v == Py_None)
			continue;
		name = PyUnicode_AsUTF8(v);
		if (!name)
			return -1;
		snprintf(role_field(r, i), DTA_CONFIG_NAME_MAX, "%s", name);
	}
	v = PyDict_GetItemString(d, "events_by");
	if (v && (r->events_by = (unsigned)PyLong_AsUnsignedLong(v),
		  PyErr_Occurred()))
		return -1;
	v = PyDict_GetItemString(d, "redundancy");
	if (v && (r->redundancy = (unsigned)PyLong_AsUnsignedLong(v),
		  PyErr_Occurred()))
		return -1;
	return 0;
}

/* int_roles(config_path) -> dict of the [int] section's roles, or None. */
static PyObject *mod_int_roles(PyObject *m, PyObject *args)
{
	struct dta_config *cfg;
	struct dta_int_roles r = { .sz = sizeof(r) };
	const char *path;
	char err[512] = "";
	PyObject *d;
	int rc;

	if (!PyArg_ParseTuple(args, "s", &path))
		return NULL;
	rc = dta_config_load(path, &cfg, err, sizeof(err));
	if (rc < 0)
		return raise_code(rc, *err ? err : path);
	rc = dta_int_roles_config(cfg, &r);
	dta_config_destroy(cfg);
	if (rc < 0)
		return raise_code(rc, path);
	if (rc == 0)
		Py_RETURN_NONE;
	d = PyDict_New();
	if (!d)
		return NULL;
	for (unsigned i = 0; i < 6; i++) {
		const char *n = role_field(&r, i);
		PyObject *v = *n ? PyUnicode_FromString(n) : Py_NewRef(Py_None);

		if (!v || PyDict_SetItemString(d, role_keys[i], v) < 0) {
			Py_XDECREF(v);
			Py_DECREF(d);
			return NULL;
		}
		Py_DECREF(v);
	}
	if (dict_set(d, "events_by", PyLong_FromUnsignedLong(r.events_by)) < 0 ||
	    dict_set(d, "redundancy", PyLong_FromUnsignedLong(r.redundancy)) < 0) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

/* A u32 that may be "not reported" (all ones) as an int or None. */
static PyObject *opt_u64(uint64_t v, uint64_t none)
{
	if (v == none)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLongLong(v);
}

/* int_paths(roles, keys, klen, which) -> [(status, primitive, (sw..),
 * votes, candidates, valid_copies)] */
static PyObject *client_int_paths(struct client_obj *self, PyObject *args)
{
	struct dta_int_roles r;
	struct dta_int_path *p = NULL;
	PyObject *roles, *keys, *out = NULL;
	Py_ssize_t klen;
	unsigned which;
	Py_buffer kb;
	size_t n;
	int rc;

	if (!PyArg_ParseTuple(args, "OOnI", &roles, &keys, &klen, &which) ||
	    client_open_check(self) < 0 || roles_from(roles, &r) < 0 ||
	    get_keys(keys, &kb, klen, &n) < 0)
		return NULL;
	p = PyMem_RawMalloc((n ? n : 1) * sizeof(*p));
	if (!p) {
		PyErr_NoMemory();
		goto release;
	}
	CLIENT_CALL(self, rc, dta_int_paths(self->c, &r, which, kb.buf,
					    (size_t)klen, n, p));
	if (rc < 0) {
		client_raise(self, rc);
		goto release;
	}
	out = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; out && i < n; i++) {
		PyObject *sw = PyTuple_New(p[i].n), *t;

		for (unsigned j = 0; sw && j < p[i].n; j++)
			PyTuple_SET_ITEM(sw, j, opt_u64(p[i].sw[j], DTA_INT_NONE));
		t = sw ? Py_BuildValue("(iiNIII)", p[i].status, p[i].primitive,
				       sw, p[i].votes, p[i].candidates,
				       p[i].valid_copies)
		       : NULL;
		if (!t) {
			Py_CLEAR(out);
			break;
		}
		PyList_SET_ITEM(out, (Py_ssize_t)i, t);
	}
release:
	PyMem_RawFree(p);
	PyBuffer_Release(&kb);
	return out;
}

/* A sequence of ints into a new u32 (or u8) array of @n. */
static void *ints_from(PyObject *seq, size_t *n, size_t width)
{
	PyObject *f = PySequence_Fast(seq, "expected a sequence of ints");
	uint8_t *a;

	if (!f)
		return NULL;
	*n = (size_t)PySequence_Fast_GET_SIZE(f);
	a = PyMem_RawMalloc((*n ? *n : 1) * width);
	if (!a) {
		Py_DECREF(f);
		PyErr_NoMemory();
		return NULL;
	}
	for (size_t i = 0; i < *n; i++) {
		PyObject *o = PySequence_Fast_GET_ITEM(f, (Py_ssize_t)i);
		unsigned long v = o == Py_None ? DTA_INT_NONE
					       : PyLong_AsUnsignedLong(o);

		if (PyErr_Occurred() || (width == 1 && v > 255) ||
		    v > UINT32_MAX) {
			if (!PyErr_Occurred())
				PyErr_SetString(PyExc_ValueError,
						"a value out of range");
			PyMem_RawFree(a);
			Py_DECREF(f);
			return NULL;
		}
		if (width == 1)
			a[i] = (uint8_t)v;
		else
			((uint32_t *)a)[i] = (uint32_t)v;
	}
	Py_DECREF(f);
	return a;
}

/* int_hops(roles, keys, klen, switch_ids) -> [(switch_id, status,
 * latency, occupancy, egress_ts, clean)] */
static PyObject *client_int_hops(struct client_obj *self, PyObject *args)
{
	struct dta_int_roles r;
	struct dta_int_hop_record *h = NULL;
	PyObject *roles, *keys, *sws, *out = NULL;
	Py_ssize_t klen;
	uint32_t *sw = NULL;
	Py_buffer kb;
	size_t n, ns;
	int rc;

	if (!PyArg_ParseTuple(args, "OOnO", &roles, &keys, &klen, &sws) ||
	    client_open_check(self) < 0 || roles_from(roles, &r) < 0 ||
	    get_keys(keys, &kb, klen, &n) < 0)
		return NULL;
	sw = ints_from(sws, &ns, 4);
	if (!sw)
		goto release;
	if (ns != n) {
		PyErr_SetString(PyExc_ValueError, "one switch id per key");
		goto release;
	}
	h = PyMem_RawMalloc((n ? n : 1) * sizeof(*h));
	if (!h) {
		PyErr_NoMemory();
		goto release;
	}
	CLIENT_CALL(self, rc, dta_int_hop_records(self->c, &r, kb.buf,
						  (size_t)klen, sw, n, h));
	if (rc < 0) {
		client_raise(self, rc);
		goto release;
	}
	out = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; out && i < n; i++) {
		bool f = h[i].status == DTA_Q_FOUND;
		PyObject *t = Py_BuildValue(
			"(NiNNNO)", opt_u64(h[i].switch_id, DTA_INT_NONE),
			h[i].status,
			f ? opt_u64(h[i].hop.hop_latency, UINT32_MAX)
			  : Py_NewRef(Py_None),
			f ? opt_u64(h[i].hop.queue_occupancy, UINT32_MAX)
			  : Py_NewRef(Py_None),
			f ? opt_u64(h[i].hop.egress_ts, UINT64_MAX)
			  : Py_NewRef(Py_None),
			h[i].clean ? Py_True : Py_False);

		if (!t) {
			Py_CLEAR(out);
			break;
		}
		PyList_SET_ITEM(out, (Py_ssize_t)i, t);
	}
release:
	PyMem_RawFree(h);
	PyMem_RawFree(sw);
	PyBuffer_Release(&kb);
	return out;
}

/* int_counts(roles, keys, klen, counts) for flows; int_queue_counts(roles,
 * switch_ids, queues, counts): counts is a writable u64 buffer. */
static PyObject *client_int_flow_counts(struct client_obj *self,
					PyObject *args)
{
	struct dta_int_roles r;
	PyObject *roles, *keys, *counts;
	Py_ssize_t klen;
	Py_buffer kb, cb;
	size_t n;
	int rc;

	if (!PyArg_ParseTuple(args, "OOnO", &roles, &keys, &klen, &counts) ||
	    client_open_check(self) < 0 || roles_from(roles, &r) < 0 ||
	    get_keys(keys, &kb, klen, &n) < 0)
		return NULL;
	if (get_out(counts, &cb, n * sizeof(uint64_t), "counts") < 0) {
		PyBuffer_Release(&kb);
		return NULL;
	}
	CLIENT_CALL(self, rc, dta_int_flow_counts(self->c, &r, kb.buf,
						  (size_t)klen, n, cb.buf));
	PyBuffer_Release(&cb);
	PyBuffer_Release(&kb);
	if (rc < 0)
		return client_raise(self, rc);
	Py_RETURN_NONE;
}

static PyObject *client_int_queue_counts(struct client_obj *self,
					 PyObject *args)
{
	struct dta_int_roles r;
	PyObject *roles, *sws, *qs, *counts, *ret = NULL;
	uint32_t *sw = NULL;
	uint8_t *q = NULL;
	Py_buffer cb;
	size_t n, nq;
	int rc;

	if (!PyArg_ParseTuple(args, "OOOO", &roles, &sws, &qs, &counts) ||
	    client_open_check(self) < 0 || roles_from(roles, &r) < 0)
		return NULL;
	sw = ints_from(sws, &n, 4);
	q = sw ? ints_from(qs, &nq, 1) : NULL;
	if (!q)
		goto release;
	if (nq != n) {
		PyErr_SetString(PyExc_ValueError, "one queue per switch id");
		goto release;
	}
	if (get_out(counts, &cb, n * sizeof(uint64_t), "counts") < 0)
		goto release;
	CLIENT_CALL(self, rc, dta_int_queue_counts(self->c, &r, sw, q, n,
						   cb.buf));
	PyBuffer_Release(&cb);
	if (rc < 0) {
		client_raise(self, rc);
		goto release;
	}
	ret = Py_NewRef(Py_None);
release:
	PyMem_RawFree(q);
	PyMem_RawFree(sw);
	return ret;
}

/* int_events(roles, filter, start, max) -> ([(list, switch_id, ingress,
 * egress, flags, queue, reason, version, occupancy, flow_hash, latency,
 * time)], read, lost): every matching event stored now, up to max. */
static PyObject *client_int_events(struct client_obj *self, PyObject *args)
{
	struct dta_int_event_filter f;
	struct dta_int_roles r;
	struct dta_int_events *e = NULL;
	struct dta_int_event *ev = NULL;
	uint32_t *lst = NULL;
	PyObject *roles, *fd, *out = NULL, *v;
	unsigned long long max;
	uint64_t nread = 0, lost = 0;
	uint32_t missing = 0;
	int from, rc;
	size_t got = 0;

	if (!PyArg_ParseTuple(args, "OOiK", &roles, &fd, &from, &max) ||
	    client_open_check(self) < 0 || roles_from(roles, &r) < 0)
		return NULL;
	dta_int_event_filter_init(&f);
	if (fd != Py_None) {
		static const char *const k[] = { "switch_id", "flow_hash",
						  "reason", "queue",
						  "time_from", "time_to" };
		uint64_t *dst[] = { &f.switch_id, &f.flow_hash, &f.reason,
				    &f.queue, &f.time_from, &f.time_to };

		for (unsigned i = 0; i < 6; i++) {
			v = PyDict_GetItemString(fd, k[i]);
			if (v && v != Py_None &&
			    (*dst[i] = PyLong_AsUnsignedLongLong(v),
			     PyErr_Occurred()))
				return NULL;
		}
		v = PyDict_GetItemString(fd, "flags");
		if (v && v != Py_None &&
		    (f.flags = (uint8_t)PyLong_AsUnsignedLong(v),
		     PyErr_Occurred()))
			return NULL;
	}
	ev = PyMem_RawMalloc(4096 * sizeof(*ev));
	lst = PyMem_RawMalloc(4096 * sizeof(*lst));
	out = PyList_New(0);
	if (!ev || !lst || !out) {
		if (!out || !PyErr_Occurred())
			PyErr_NoMemory();
		goto fail;
	}
	CLIENT_CALL(self, rc, dta_int_events_open(self->c, &r, &f, from, &e));
	if (rc < 0) {
		client_raise(self, rc);
		goto fail;
	}
	while (got < max) {
		long k;
		size_t want = max - got < 4096 ? (size_t)(max - got) : 4096;

		CLIENT_CALL(self, k, dta_int_events_read(e, ev, lst, want));
		if (k < 0) {
			client_raise(self, (int)k);
			goto fail;
		}
		if (k == 0)
			break;
		for (long i = 0; i < k; i++) {
			PyObject *t = Py_BuildValue(
				"(kkNNiNNiNkNK)", (unsigned long)lst[i],
				(unsigned long)ev[i].switch_id,
				opt_u64(ev[i].ingress_port, UINT16_MAX),
				opt_u64(ev[i].egress_port, UINT16_MAX),
				ev[i].flags, opt_u64(ev[i].queue_id, UINT8_MAX),
				opt_u64(ev[i].drop_reason, UINT8_MAX),
				ev[i].version,
				opt_u64(ev[i].queue_occupancy, UINT32_MAX),
				(unsigned long)ev[i].flow_hash,
				opt_u64(ev[i].hop_latency, UINT32_MAX),
				(unsigned long long)ev[i].time);

			if (!t || PyList_Append(out, t) < 0) {
				Py_XDECREF(t);
				goto fail;
			}
			Py_DECREF(t);
		}
		got += (size_t)k;
	}
	dta_int_events_counts(e, &nread, &lost);
	dta_int_events_partial(e, &missing);
	dta_int_events_close(e);
	PyMem_RawFree(ev);
	PyMem_RawFree(lst);
	return Py_BuildValue("(NKKk)", out, (unsigned long long)nread,
			     (unsigned long long)lost, (unsigned long)missing);
fail:
	dta_int_events_close(e);
	PyMem_RawFree(ev);
	PyMem_RawFree(lst);
	Py_XDECREF(out);
	return NULL;
}

static PyMethodDef client_methods[] = {
	{"close", (PyCFunction)client_close, METH_NOARGS,
	 "Close the handle (and its cursors); idempotent."},
	{"structures", (PyCFunction)client_structures, METH_NOARGS,
	 "Every structure, as a list of dicts."},
	{"kw_get", (PyCFunction)(void (*)(void))client_kw_get,
	 METH_VARARGS | METH_KEYWORDS,
	 "kw_get(name, keys, klen, status, data, redundancy=0, threshold=0, "
	 "votes=None, found=None)"},
	{"pc_get", (PyCFunction)client_pc_get, METH_VARARGS,
	 "pc_get(name, keys, klen, status, lengths, paths)"},
	{"ki_get", (PyCFunction)client_ki_get, METH_VARARGS,
	 "ki_get(name, keys, klen, bank, counts)"},
	{"ki_total", (PyCFunction)client_ki_total, METH_VARARGS,
	 "ki_total(name, bank) -> total added to the bank over all shares"},
	{"partial", (PyCFunction)client_partial, METH_NOARGS,
	 "partial() -> (missing mask, [names], message) of the last call"},
	{"collector_name", (PyCFunction)client_collector_name, METH_VARARGS,
	 "collector_name(i) -> the name of collector i, or None"},
	{"ap_open", (PyCFunction)client_ap_open, METH_VARARGS,
	 "ap_open(name, list, start) -> Cursor"},
	{"int_paths", (PyCFunction)client_int_paths, METH_VARARGS,
	 "int_paths(roles, keys, klen, which) -> [(status, primitive, sw, "
	 "votes, candidates, valid_copies)]"},
	{"int_hops", (PyCFunction)client_int_hops, METH_VARARGS,
	 "int_hops(roles, keys, klen, switch_ids) -> [(switch_id, status, "
	 "latency, occupancy, egress_ts, clean)]"},
	{"int_flow_counts", (PyCFunction)client_int_flow_counts, METH_VARARGS,
	 "int_flow_counts(roles, keys, klen, counts)"},
	{"int_queue_counts", (PyCFunction)client_int_queue_counts, METH_VARARGS,
	 "int_queue_counts(roles, switch_ids, queues, counts)"},
	{"int_events", (PyCFunction)client_int_events, METH_VARARGS,
	 "int_events(roles, filter, start, max) -> (events, read, lost, "
	 "missing mask)"},
	{"wait", (PyCFunction)client_wait, METH_VARARGS,
	 "wait(name, seq, timeout_ms) -> (moved, seq): dta_client_wait()"},
	{"request", (PyCFunction)client_request, METH_VARARGS,
	 "request(collector, text) -> JSON text"},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef client_getset[] = {
	{"closed", (getter)client_closed, NULL, "True once closed.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject client_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "dta._dta.Client",
	.tp_basicsize = sizeof(struct client_obj),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Client(target, flags=0): a libdta query client handle.",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)client_init,
	.tp_dealloc = (destructor)client_dealloc,
	.tp_methods = client_methods,
	.tp_getset = client_getset,
};

/* ---------------------------------------------------------------- Cursor */

static int cursor_check(struct cursor_obj *self)
{
	if (self->cur && self->client->c)
		return 0;
	raise_code(-EBADF, self->cur ? "the client is closed"
				     : "the cursor is closed");
	return -1;
}

/* read(buf, max) -> (entries, lost): up to @max entries into @buf. */
static PyObject *cursor_read(struct cursor_obj *self, PyObject *args)
{
	PyObject *buf;
	Py_buffer b;
	Py_ssize_t max;
	uint64_t lost = 0;
	long rc;

	if (!PyArg_ParseTuple(args, "On", &buf, &max))
		return NULL;
	if (cursor_check(self) < 0)
		return NULL;
	if (max < 0) {
		PyErr_SetString(PyExc_ValueError, "max < 0");
		return NULL;
	}
	if (get_out(buf, &b, (size_t)max * self->entry_size, "entries") < 0)
		return NULL;
	/* (self->cur read under the lock: close() may run meanwhile) */
	CLIENT_CALL(self->client, rc,
		    self->cur ? dta_client_ap_read(self->cur, b.buf,
						   (size_t)max, &lost)
			      : -EBADF);
	PyBuffer_Release(&b);
	if (rc < 0)
		return self->cur ? client_raise(self->client, (int)rc)
				 : raise_code(-EBADF, "the cursor is closed");
	return Py_BuildValue("(lK)", rc, (unsigned long long)lost);
}

static PyObject *cursor_position(struct cursor_obj *self, void *unused)
{
	if (cursor_check(self) < 0)
		return NULL;
	return PyLong_FromUnsignedLongLong(dta_client_ap_position(self->cur));
}

static PyObject *cursor_close(struct cursor_obj *self, PyObject *unused)
{
	struct dta_client_cursor *cur = self->cur;
	int rc = 0;

	self->cur = NULL;
	/* A closed client has closed its cursors already (CLIENT_CALL
	 * checks, under the lock). */
	if (cur)
		CLIENT_CALL(self->client, rc, (dta_client_ap_close(cur), 0));
	(void)rc;
	Py_RETURN_NONE;
}

static void cursor_dealloc(struct cursor_obj *self)
{
	struct dta_client_cursor *cur = self->cur;
	int rc = 0;

	/* Under the lock: another thread may be using the client. */
	if (cur)
		CLIENT_CALL(self->client, rc, (dta_client_ap_close(cur), 0));
	(void)rc;
	Py_DECREF(self->client);
	PyObject_Free(self);
}

static PyMethodDef cursor_methods[] = {
	{"read", (PyCFunction)cursor_read, METH_VARARGS,
	 "read(buf, max) -> (entries, lost)"},
	{"close", (PyCFunction)cursor_close, METH_NOARGS, "Stop following."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef cursor_getset[] = {
	{"position", (getter)cursor_position, NULL,
	 "Index of the next entry expected (entries read or lost).", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject cursor_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "dta._dta.Cursor",
	.tp_basicsize = sizeof(struct cursor_obj),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One Append list being followed (Client.ap_open()).",
	.tp_dealloc = (destructor)cursor_dealloc,
	.tp_methods = cursor_methods,
	.tp_getset = cursor_getset,
};

/* ---------------------------------------------------------------- module */

static PyObject *mod_strerror(PyObject *m, PyObject *args)
{
	int code;

	if (!PyArg_ParseTuple(args, "i", &code))
		return NULL;
	return PyUnicode_FromString(dta_strerror(code));
}

/* schema_parse(text) -> schema dict (as Client.structures() gives it). */
static PyObject *mod_schema_parse(PyObject *m, PyObject *args)
{
	struct dta_schema s;
	const char *text;
	char err[256] = "";
	int rc;

	if (!PyArg_ParseTuple(args, "s", &text))
		return NULL;
	rc = dta_schema_parse(text, &s, err, sizeof(err));
	if (rc < 0)
		return raise_code(rc, err);
	return schema_dict(&s);
}

/* bound_kw(n, bits, alpha) -> (empty, wrong): eq. 1-4 (dta/analysis.h). */
static PyObject *mod_bound_kw(PyObject *m, PyObject *args)
{
	unsigned n, bits;
	double alpha;

	if (!PyArg_ParseTuple(args, "IId", &n, &bits, &alpha))
		return NULL;
	return Py_BuildValue("(dd)", dta_bound_kw_empty(n, bits, alpha),
			     dta_bound_kw_wrong(n, bits, alpha));
}

/* bound_pc(n, bits, alpha, values, hops) -> (empty, wrong): eq. 5-8. */
static PyObject *mod_bound_pc(PyObject *m, PyObject *args)
{
	unsigned n, bits, hops;
	double alpha, values;

	if (!PyArg_ParseTuple(args, "IIddI", &n, &bits, &alpha, &values, &hops))
		return NULL;
	return Py_BuildValue("(dd)",
			     dta_bound_pc_empty(n, bits, alpha, values, hops),
			     dta_bound_pc_wrong(n, bits, alpha, values, hops));
}

static PyMethodDef module_methods[] = {
	{"strerror", mod_strerror, METH_VARARGS,
	 "strerror(code) -> libdta's text for an error code"},
	{"schema_parse", mod_schema_parse, METH_VARARGS,
	 "schema_parse(text) -> dict (libdta's dta_schema_parse())"},
	{"int_roles", mod_int_roles, METH_VARARGS,
	 "int_roles(config_path) -> dict of the [int] roles, or None"},
	{"bound_kw", mod_bound_kw, METH_VARARGS,
	 "bound_kw(n, bits, alpha) -> (empty, wrong): eq. 1-4"},
	{"bound_pc", mod_bound_pc, METH_VARARGS,
	 "bound_pc(n, bits, alpha, values, hops) -> (empty, wrong): eq. 5-8"},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "dta._dta",
	.m_doc = "libdta's query client (dta/client.h); use the dta package.",
	.m_size = -1,
	.m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__dta(void);
PyMODINIT_FUNC PyInit__dta(void)
{
	static const struct {
		const char *name;
		long value;
	} consts[] = {
		{"FOUND", DTA_Q_FOUND},
		{"NOT_FOUND", DTA_Q_NOT_FOUND},
		{"CONFLICT", DTA_Q_CONFLICT},
		{"UNAVAILABLE", DTA_Q_UNAVAILABLE},
		{"KEY_WRITE", DTA_PRIM_KEY_WRITE},
		{"APPEND", DTA_PRIM_APPEND},
		{"KEY_INCREMENT", DTA_PRIM_KEY_INCREMENT},
		{"POSTCARD", DTA_PRIM_POSTCARD},
		{"AP_OLDEST", DTA_EXEC_AP_OLDEST},
		{"INT_F_DROPPED", DTA_INT_F_DROPPED},
		{"INT_F_CONGESTED", DTA_INT_F_CONGESTED},
		{"AP_NOW", DTA_EXEC_AP_NOW},
		{"CLIENT_TEXT", DTA_CLIENT_TEXT},
		{"CLIENT_ANY_OWNER", DTA_CLIENT_ANY_OWNER},
		{"MAX_HOPS", DTA_MAX_HOPS},
		{"KEY_MAX", DTA_KEY_MAX},
		{"BATCH_MAX", DTA_EXEC_BATCH_MAX},
		{"ERRNO_BASE", DTA_ERRNO_BASE},
		{"FIELD_U8", DTA_FIELD_U8},
		{"FIELD_U16", DTA_FIELD_U16},
		{"FIELD_U32", DTA_FIELD_U32},
		{"FIELD_U64", DTA_FIELD_U64},
		{"FIELD_I8", DTA_FIELD_I8},
		{"FIELD_I16", DTA_FIELD_I16},
		{"FIELD_I32", DTA_FIELD_I32},
		{"FIELD_I64", DTA_FIELD_I64},
		{"FIELD_BYTES", DTA_FIELD_BYTES},
		{"TIME_NONE", DTA_TIME_NONE},
		{"TIME_NS", DTA_TIME_NS},
		{"TIME_US", DTA_TIME_US},
		{"TIME_MS", DTA_TIME_MS},
		{"TIME_S", DTA_TIME_S},
#define DTA_ERRNO_CONST(name, text) {"E_" #name, DTA_E_##name},
		DTA_ERRNO_MAP(DTA_ERRNO_CONST)
#undef DTA_ERRNO_CONST
	};
	PyObject *m;

	if (PyType_Ready(&client_type) < 0 || PyType_Ready(&cursor_type) < 0)
		return NULL;
	m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	dta_error = PyErr_NewExceptionWithDoc(
		"dta.Error",
		"A libdta error: errno is the code (an errno value, or a "
		"DTA_E_* code above ERRNO_BASE), strerror the client's message.",
		PyExc_OSError, NULL);
	if (!dta_error || PyModule_AddObjectRef(m, "Error", dta_error) < 0 ||
	    PyModule_AddObjectRef(m, "Client", (PyObject *)&client_type) < 0 ||
	    PyModule_AddObjectRef(m, "Cursor", (PyObject *)&cursor_type) < 0)
		goto fail;
	if (PyModule_AddStringConstant(m, "VERSION", DTA_VERSION_STRING) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++)
		if (PyModule_AddIntConstant(m, consts[i].name, consts[i].value) < 0)
			goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
