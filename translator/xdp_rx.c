/* SPDX-License-Identifier: BSD-3-Clause */
/* The AF_XDP receive path; see xdp_rx.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include "xdp_rx.h"

int xdp_rx_ifname_for(uint32_t addr, char *name)
{
	struct ifaddrs *ifa, *i;
	int rc = -ENOENT;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr ==
			    addr) {
			snprintf(name, IF_NAMESIZE, "%s", i->ifa_name);
			rc = 0;
			break;
		}
	freeifaddrs(ifa);
	return rc;
}

#ifndef DTA_HAVE_XDP

bool xdp_rx_available(void) { return false; }
int xdp_rx_rx_queues(const char *ifname) { (void)ifname; return -EOPNOTSUPP; }
int xdp_rx_open(const struct xdp_rx_opts *o, struct xdp_rx **out, char *why,
		size_t cap)
{
	(void)o;
	*out = NULL;
	snprintf(why, cap, "this build has no AF_XDP support (libxdp, libbpf "
		 "or clang was missing when it was built)");
	return -EOPNOTSUPP;
}
void xdp_rx_close(struct xdp_rx *x) { (void)x; }
void xdp_rx_detach(struct xdp_rx *x) { (void)x; }
struct xdp_rxq *xdp_rx_queue(struct xdp_rx *x, unsigned i)
{
	(void)x; (void)i;
	return NULL;
}
const char *xdp_rx_mode_name(const struct xdp_rx *x) { (void)x; return "none"; }
const char *xdp_rx_bind_name(const struct xdp_rx *x) { (void)x; return "none"; }
int xdp_rx_counts(const struct xdp_rx *x, uint64_t *c)
{
	(void)x;
	memset(c, 0, DTA_XDP_NCOUNTS * sizeof(*c));
	return -EOPNOTSUPP;
}
int xdp_rxq_fd(const struct xdp_rxq *q) { (void)q; return -1; }
unsigned xdp_rx_ring_frames(const struct xdp_rx *x) { (void)x; return 0; }
unsigned xdp_rxq_recv(struct xdp_rxq *q, struct xdp_rx_pkt *p, unsigned max)
{
	(void)q; (void)p; (void)max;
	return 0;
}
void xdp_rxq_release(struct xdp_rxq *q) { (void)q; }
int xdp_rxq_drops(const struct xdp_rxq *q, struct xdp_rx_drops *d)
{
	(void)q;
	memset(d, 0, sizeof(*d));
	return -EOPNOTSUPP;
}
int xdp_rx_test_prog(const struct xdp_rx_opts *o, const uint8_t *const *frames,
		     const size_t *lens, unsigned n, int *act, uint64_t *c)
{
	(void)o; (void)frames; (void)lens; (void)n; (void)act; (void)c;
	return -EOPNOTSUPP;
}

#else /* DTA_HAVE_XDP */

#include <dirent.h>
#include <limits.h>
#include <pcap/dlt.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include "log.h"
#include "tools.h"

/* The program, compiled at build time (dta_xdp_obj.c, generated). */
extern const unsigned char dta_xdp_obj[];
extern const size_t dta_xdp_obj_len;

#define PROG_NAME "dta_xdp"
#define FRAME_SIZE XSK_UMEM__DEFAULT_FRAME_SIZE /* 4096 */

struct xdp_rxq {
	struct xsk_socket *xsk;
	struct xsk_umem *umem;
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq;
	struct xsk_ring_cons rx;
	void *area;
	size_t area_size;
	unsigned nframes;
	uint16_t port, int_port;
	uint64_t *held;  /* frames of the last xdp_rxq_recv() */
	unsigned nheld;
	unsigned batch;
	int fd;
};

struct xdp_rx {
	struct bpf_object *obj;
	struct xdp_program *prog;
	int ifindex;
	enum xdp_attach_mode mode;
	bool attached;
	bool zerocopy;
	int lock_fd;   /* abstract socket: one translator per interface */
	int counts_fd;
	unsigned nq;
	struct xdp_rxq q[];
};

bool xdp_rx_available(void) { return true; }

/* libxdp's and libbpf's warnings: the last one is kept and added to what
 * xdp_rx_open() says failed (their other messages are dropped). Only
 * xdp_rx_open() runs while they are set, in one thread. */
static char lib_last[200];

static int lib_print(enum libxdp_print_level level, const char *fmt,
		     va_list ap)
{
	size_t n;

	if (level != LIBXDP_WARN)
		return 0;
	vsnprintf(lib_last, sizeof(lib_last), fmt, ap);
	n = strlen(lib_last);
	while (n && lib_last[n - 1] == '\n')
		lib_last[--n] = 0;
	return 0;
}

static int bpf_print(enum libbpf_print_level level, const char *fmt,
		     va_list ap)
{
	return lib_print((enum libxdp_print_level)level, fmt, ap);
}

int xdp_rx_rx_queues(const char *ifname)
{
	char path[PATH_MAX];
	struct dirent *e;
	int n = 0;
	DIR *d;

	if (!if_nametoindex(ifname))
		return -ENODEV;
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	d = opendir(path);
	if (!d)
		return 1; /* no sysfs: the first queue */
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, "rx-", 3);
	closedir(d);
	return n ? n : 1;
}

/* Set read-only variable @name of the object before it is loaded. */
static int set_rodata(struct bpf_object *obj, const char *name,
		      const void *v, size_t size)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *m, *ro = NULL;
	const void *data = NULL;
	size_t msize = 0;
	int sec;

	bpf_object__for_each_map(m, obj) {
		const char *n = bpf_map__name(m);
		size_t l = strlen(n);

		if (l >= 7 && !strcmp(n + l - 7, ".rodata")) {
			ro = m;
			data = bpf_map__initial_value(m, &msize);
		}
	}
	if (!btf || !data)
		return -ENOENT;
	sec = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (sec < 0)
		return -ENOENT;
	{
		const struct btf_type *t = btf__type_by_id(btf, (unsigned)sec);
		const struct btf_var_secinfo *vi = btf_var_secinfos(t);

		for (unsigned i = 0; i < btf_vlen(t); i++, vi++) {
			const struct btf_type *var = btf__type_by_id(btf, vi->type);

			if (strcmp(btf__name_by_offset(btf, var->name_off), name))
				continue;
			uint8_t img[256];

			if (vi->size != size || vi->offset + size > msize ||
			    msize > sizeof(img))
				return -EINVAL;
			memcpy(img, data, msize);
			memcpy(img + vi->offset, v, size);
			return bpf_map__set_initial_value(ro, img, msize);
		}
	}
	return -ENOENT;
}

/* The program's read-only configuration from @o. */
static int configure(struct bpf_object *obj, const struct xdp_rx_opts *o)
{
	uint8_t ipv6 = o->bind_v4 == 0;
	uint32_t max_frame = FRAME_SIZE - XDP_PACKET_HEADROOM;
	int err;

	if ((err = set_rodata(obj, "dta_port", &o->port, 2)) ||
	    (err = set_rodata(obj, "int_port", &o->int_port, 2)) ||
	    (err = set_rodata(obj, "bind_v4", &o->bind_v4, 4)) ||
	    (err = set_rodata(obj, "ipv6_ok", &ipv6, 1)))
		return err;
	return set_rodata(obj, "max_frame", &max_frame, 4);
}

/* The per-CPU counters of map @fd, summed. */
static int read_counts(int fd, uint64_t *c)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v;
	int err = 0;

	memset(c, 0, DTA_XDP_NCOUNTS * sizeof(*c));
	if (ncpu <= 0)
		return -EIO;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t k = 0; k < DTA_XDP_NCOUNTS; k++) {
		if (bpf_map_lookup_elem(fd, &k, v)) {
			err = -errno;
			break;
		}
		for (int i = 0; i < ncpu; i++)
			c[k] += v[i];
	}
	free(v);
	return err;
}

int xdp_rx_test_prog(const struct xdp_rx_opts *o, const uint8_t *const *frames,
		     const size_t *lens, unsigned n, int *act, uint64_t *c)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = PROG_NAME);
	struct bpf_object *obj;
	struct bpf_program *p;
	int err, fd;

	libbpf_set_print(bpf_print);
	obj = bpf_object__open_mem(dta_xdp_obj, dta_xdp_obj_len, &oo);
	err = (int)libbpf_get_error(obj);
	if (err)
		return err;
	err = configure(obj, o);
	if (!err)
		err = bpf_object__load(obj);
	p = bpf_object__find_program_by_name(obj, PROG_NAME);
	if (!err && !p)
		err = -ENOENT;
	for (unsigned i = 0; !err && i < n; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, to, .data_in = frames[i],
			    .data_size_in = (uint32_t)lens[i], .repeat = 1);

		err = bpf_prog_test_run_opts(bpf_program__fd(p), &to);
		act[i] = (int)to.retval;
	}
	fd = bpf_object__find_map_fd_by_name(obj, "counts");
	if (!err)
		err = fd < 0 ? fd : read_counts(fd, c);
	bpf_object__close(obj);
	return err;
}

/*
 * One translator per interface: it holds an abstract socket named after
 * the interface in the network namespace, which the kernel releases when
 * the process ends however it ends. Holding it, a program of ours still
 * attached was left by a translator that is gone: detach it, or it would
 * keep the place in the dispatcher (its sockets are closed, so it would
 * only pass frames to the kernel).
 */
static int take_interface(struct xdp_rx *x, const char *ifname, char *why,
			  size_t cap)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int len = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
			   "dta-translator-xdp-%d", x->ifindex);

	x->lock_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (x->lock_fd < 0)
		return -errno;
	if (bind(x->lock_fd, (struct sockaddr *)&sa,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			     (size_t)len))) {
		int err = -errno;

		if (err == -EADDRINUSE)
			snprintf(why, cap, "another dta-translator receives "
				 "with XDP on %s (it holds @%s)", ifname,
				 sa.sun_path + 1);
		return err;
	}
	return 0;
}

static void remove_stale(struct xdp_rx *x, const char *ifname)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(x->ifindex);
	struct xdp_program *p;
	int n = 0;

	if (!mp || libxdp_get_error(mp))
		return;
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		if (p && !strcmp(xdp_program__name(p), PROG_NAME) &&
		    !xdp_multiprog__detach(mp))
			n++;
	} else {
		enum xdp_attach_mode m = xdp_multiprog__attach_mode(mp);

		for (p = xdp_multiprog__next_prog(NULL, mp); p;
		     p = xdp_multiprog__next_prog(p, mp))
			if (!strcmp(xdp_program__name(p), PROG_NAME) &&
			    !xdp_program__detach(p, x->ifindex, m, 0))
				n++;
	}
	xdp_multiprog__close(mp);
	if (n)
		tool_log(LOG_WARNING, "removed %d stale %s program%s from %s "
			 "(left by a translator that did not exit cleanly)",
			 n, PROG_NAME, n == 1 ? "" : "s", ifname);
}

static int open_queue(struct xdp_rx *x, const struct xdp_rx_opts *o,
		      unsigned qi, int map_fd, char *why, size_t cap)
{
	struct xdp_rxq *q = &x->q[qi];
	struct xsk_umem_config uc = { .comp_size = 64, .frame_size = FRAME_SIZE };
	struct xsk_socket_config sc = {
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_USE_NEED_WAKEUP,
	};
	struct xdp_options opt;
	socklen_t ol = sizeof(opt);
	uint32_t idx;
	int err;

	q->fd = -1;
	q->port = o->port;
	q->int_port = o->int_port;
	q->batch = o->batch;
	/* Four batches of frames at least, a power of two, 4096 or more. */
	for (q->nframes = 4096; q->nframes < 4 * o->batch;)
		q->nframes *= 2;
	uc.fill_size = q->nframes;
	sc.rx_size = q->nframes;
	q->area_size = (size_t)q->nframes * FRAME_SIZE;
	q->held = calloc(o->batch, sizeof(*q->held));
	q->area = mmap(NULL, q->area_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (q->area == MAP_FAILED) {
		q->area = NULL;
		return -ENOMEM;
	}
	if (!q->held)
		return -ENOMEM;
	err = xsk_umem__create(&q->umem, q->area, q->area_size, &q->fq, &q->cq,
			       &uc);
	if (err) {
		snprintf(why, cap, "UMEM for queue %u (%zu MiB): %s%s", qi,
			 q->area_size >> 20, strerror(-err),
			 err == -EPERM ? " (AF_XDP sockets need CAP_NET_RAW)"
			 : err == -ENOBUFS || err == -ENOMEM
				 ? " (locked memory: RLIMIT_MEMLOCK or CAP_IPC_LOCK)"
				 : "");
		return err;
	}
	err = xsk_socket__create(&q->xsk, o->ifname, qi, q->umem, &q->rx, NULL,
				 &sc);
	if (err) {
		snprintf(why, cap, "AF_XDP socket on %s queue %u: %s", o->ifname,
			 qi, strerror(-err));
		return err;
	}
	q->fd = xsk_socket__fd(q->xsk);
	if (getsockopt(q->fd, SOL_XDP, XDP_OPTIONS, &opt, &ol) == 0 &&
	    (opt.flags & XDP_OPTIONS_ZEROCOPY))
		x->zerocopy = true;
	err = xsk_socket__update_xskmap(q->xsk, map_fd);
	if (err) {
		snprintf(why, cap, "XSKMAP entry %u: %s", qi, strerror(-err));
		return err;
	}
	if (xsk_ring_prod__reserve(&q->fq, q->nframes, &idx) != q->nframes)
		return -ENOSPC;
	for (unsigned i = 0; i < q->nframes; i++)
		*xsk_ring_prod__fill_addr(&q->fq, idx + i) =
			(uint64_t)i * FRAME_SIZE;
	xsk_ring_prod__submit(&q->fq, q->nframes);
	return 0;
}

int xdp_rx_open(const struct xdp_rx_opts *o, struct xdp_rx **out,
		char *why, size_t cap)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = PROG_NAME);
	DECLARE_LIBXDP_OPTS(xdp_program_opts, po, .prog_name = PROG_NAME);
	struct xdp_rx *x;
	int err, map_fd;

	*out = NULL;
	why[0] = 0;
	if (!o->queues || o->queues > 64)
		return -EINVAL;
	x = calloc(1, sizeof(*x) + o->queues * sizeof(x->q[0]));
	if (!x)
		return -ENOMEM;
	x->lock_fd = x->counts_fd = -1;
	for (unsigned i = 0; i < o->queues; i++)
		x->q[i].fd = -1;
	x->mode = o->mode == XDP_RX_GENERIC ? XDP_MODE_SKB : XDP_MODE_NATIVE;
	lib_last[0] = 0;
	libxdp_set_print(lib_print);
	libbpf_set_print(bpf_print);
	x->ifindex = (int)if_nametoindex(o->ifname);
	if (!x->ifindex) {
		err = -ENODEV;
		snprintf(why, cap, "no interface %s", o->ifname);
		goto fail;
	}
	err = take_interface(x, o->ifname, why, cap);
	if (err)
		goto fail;
	remove_stale(x, o->ifname);
	x->obj = bpf_object__open_mem(dta_xdp_obj, dta_xdp_obj_len, &oo);
	err = libbpf_get_error(x->obj);
	if (err) {
		x->obj = NULL;
		snprintf(why, cap, "opening the XDP program: %s", strerror(-err));
		goto fail;
	}
	if ((err = configure(x->obj, o))) {
		snprintf(why, cap, "configuring the XDP program: %s",
			 strerror(-err));
		goto fail;
	}
	po.obj = x->obj;
	x->prog = xdp_program__create(&po);
	err = (int)libxdp_get_error(x->prog);
	if (err) {
		x->prog = NULL;
		snprintf(why, cap, "the XDP program: %s", strerror(-err));
		goto fail;
	}
	err = xdp_program__attach(x->prog, x->ifindex, x->mode, 0);
	if (err) {
		char e[128];

		libxdp_strerror(err, e, sizeof(e));
		snprintf(why, cap, "attaching XDP (%s mode) to %s: %s%s",
			 x->mode == XDP_MODE_SKB ? "generic" : "native",
			 o->ifname, e,
			 err == -EPERM || err == -EACCES
				 ? " (needs CAP_NET_ADMIN, CAP_BPF and CAP_PERFMON)"
			 : err == -EOPNOTSUPP ? " (the driver has no native XDP: "
						"xdp_mode = generic)"
			 : err == -EBUSY || err == -EEXIST
				 ? " (another XDP program is attached: if it is a "
				   "killed translator's, `xdp-loader unload IF "
				   "--all` removes it, or give the translator "
				   "CAP_SYS_ADMIN, with which it removes its own)"
				 : "");
		goto fail;
	}
	x->attached = true;
	lib_last[0] = 0; /* what libxdp said before is no cause any more */
	map_fd = bpf_object__find_map_fd_by_name(x->obj, "xsks");
	x->counts_fd = bpf_object__find_map_fd_by_name(x->obj, "counts");
	if (map_fd < 0 || x->counts_fd < 0) {
		err = -ENOENT;
		snprintf(why, cap, "the XDP program's maps are missing");
		goto fail;
	}
	for (unsigned i = 0; i < o->queues; i++) {
		x->nq = i + 1;
		err = open_queue(x, o, i, map_fd, why, cap);
		if (err) {
			if (!why[0])
				snprintf(why, cap, "queue %u: %s", i,
					 strerror(-err));
			goto fail;
		}
	}
	*out = x;
	return 0;
fail:
	if (lib_last[0]) {
		size_t l = strlen(why);

		snprintf(why + l, cap - l, " (libxdp: %s)", lib_last);
	}
	xdp_rx_close(x);
	return err < 0 ? err : -EIO;
}

void xdp_rx_detach(struct xdp_rx *x)
{
	if (!x || !x->attached)
		return;
	/* libxdp reads the attached programs by id, which takes
	 * CAP_SYS_ADMIN; without it, detach ours by its fd (netlink, with
	 * XDP_FLAGS_REPLACE: only if it is still the one attached). */
	if (xdp_program__detach(x->prog, x->ifindex, x->mode, 0)) {
		LIBBPF_OPTS(bpf_xdp_attach_opts, ao,
			    .old_prog_fd = xdp_program__fd(x->prog));

		bpf_xdp_detach(x->ifindex,
			       x->mode == XDP_MODE_SKB ? XDP_FLAGS_SKB_MODE
						       : XDP_FLAGS_DRV_MODE,
			       &ao);
	}
	x->attached = false;
}

void xdp_rx_close(struct xdp_rx *x)
{
	if (!x)
		return;
	xdp_rx_detach(x);
	for (unsigned i = 0; i < x->nq; i++) {
		struct xdp_rxq *q = &x->q[i];

		if (q->xsk)
			xsk_socket__delete(q->xsk);
		if (q->umem)
			xsk_umem__delete(q->umem);
		if (q->area)
			munmap(q->area, q->area_size);
		free(q->held);
	}
	xdp_program__close(x->prog);
	bpf_object__close(x->obj);
	if (x->lock_fd >= 0)
		close(x->lock_fd);
	free(x);
}

struct xdp_rxq *xdp_rx_queue(struct xdp_rx *x, unsigned i)
{
	return i < x->nq ? &x->q[i] : NULL;
}

const char *xdp_rx_mode_name(const struct xdp_rx *x)
{
	return x->mode == XDP_MODE_SKB ? "generic" : "native";
}

const char *xdp_rx_bind_name(const struct xdp_rx *x)
{
	return x->zerocopy ? "zero-copy" : "copy";
}

int xdp_rx_counts(const struct xdp_rx *x, uint64_t *c)
{
	return read_counts(x->counts_fd, c);
}

unsigned xdp_rx_ring_frames(const struct xdp_rx *x)
{
	return x->nq ? x->q[0].nframes : 0;
}

int xdp_rxq_fd(const struct xdp_rxq *q)
{
	return q->fd;
}

unsigned xdp_rxq_recv(struct xdp_rxq *q, struct xdp_rx_pkt *pkts,
		      unsigned max)
{
	uint32_t idx;
	unsigned n;

	if (max > q->batch)
		max = q->batch;
	n = xsk_ring_cons__peek(&q->rx, max, &idx);
	/* The kernel wrote the frames from another CPU: start every header's
	 * cache miss before the first is parsed. */
	for (unsigned i = 0; i < n; i++)
		__builtin_prefetch(xsk_umem__get_data(
			q->area, xsk_ring_cons__rx_desc(&q->rx, idx + i)->addr));
	for (unsigned i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&q->rx, idx + i);
		const uint8_t *f = xsk_umem__get_data(q->area, d->addr);
		struct xdp_rx_pkt *p = &pkts[i];
		size_t len = 0;

		q->held[i] = xsk_umem__extract_addr(d->addr);
		p->kind = XDP_PKT_DTA;
		p->payload = tool_udp_payload(DLT_EN10MB, f, d->len, q->port,
					      &len, &p->src);
		if (!p->payload && q->int_port) {
			p->kind = XDP_PKT_INT;
			p->payload = tool_udp_payload(DLT_EN10MB, f, d->len,
						      q->int_port, &len, &p->src);
		}
		if (!p->payload)
			p->kind = XDP_PKT_BAD;
		p->len = (uint32_t)len;
	}
	q->nheld = n;
	return n;
}

void xdp_rxq_release(struct xdp_rxq *q)
{
	uint32_t idx;

	if (!q->nheld)
		return;
	/* The fill ring has room for every frame the worker holds: it is as
	 * large as the UMEM. */
	if (xsk_ring_prod__reserve(&q->fq, q->nheld, &idx) == q->nheld) {
		for (unsigned i = 0; i < q->nheld; i++)
			*xsk_ring_prod__fill_addr(&q->fq, idx + i) = q->held[i];
		xsk_ring_prod__submit(&q->fq, q->nheld);
	}
	xsk_ring_cons__release(&q->rx, q->nheld);
	q->nheld = 0;
	if (xsk_ring_prod__needs_wakeup(&q->fq))
		recvfrom(q->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
}

int xdp_rxq_drops(const struct xdp_rxq *q, struct xdp_rx_drops *d)
{
	struct xdp_statistics st;
	socklen_t len = sizeof(st);

	memset(d, 0, sizeof(*d));
	if (getsockopt(q->fd, SOL_XDP, XDP_STATISTICS, &st, &len))
		return -errno;
	d->rx_dropped = st.rx_dropped;
	d->rx_invalid_descs = st.rx_invalid_descs;
	if (len >= offsetof(struct xdp_statistics, rx_fill_ring_empty_descs) +
			   sizeof(st.rx_fill_ring_empty_descs)) {
		d->rx_ring_full = st.rx_ring_full;
		d->fill_ring_empty = st.rx_fill_ring_empty_descs;
	}
	return 0;
}

#endif /* DTA_HAVE_XDP */
