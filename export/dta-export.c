/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-export: drains Append lists (INT events included) from collectors
 * into ClickHouse (and NATS JetStream when built with libnats), keeping a
 * cursor per list across restarts (docs/export.md).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dta/dta.h"
#include "export.h"
#include "log.h"
#include "service.h"

static volatile int stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: dta-export -c CONFIG [options]\n"
		"Drain the Append lists (INT events included) of a configuration's\n"
		"collectors continuously into ClickHouse (and NATS JetStream), with a\n"
		"cursor per list kept across restarts: at-least-once delivery, each\n"
		"row carrying its id (collector, structure, list, position) so the\n"
		"sinks drop duplicates. Runs until SIGTERM/SIGINT. Settings come\n"
		"from the [export] section (docs/export.md, docs/config.md).\n"
		"\n"
		"  -c, --config FILE        configuration (docs/config.md), required\n"
		"      --print-schema       print the ClickHouse tables (a\n"
		"                           ReplacingMergeTree per structure and a\n"
		"                           Distributed table over it) and exit\n"
		"      --cluster NAME       the remote_servers cluster the Distributed\n"
		"                           tables span (default: dta); run the\n"
		"                           statements on every server of it\n"
		"      --on-cluster         add ON CLUSTER NAME to each statement\n"
		"                           instead (ClickHouse with ZooKeeper)\n"
		"      --stats              at exit, print the counters as JSON\n"
		"  -q, --quiet              no log messages\n"
		"  -h, --help               this text\n"
		"      --version            print \"dta-export VERSION\" and exit\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "print-schema", no_argument, NULL, 'P' },
		{ "cluster", required_argument, NULL, 'C' },
		{ "on-cluster", no_argument, NULL, 'O' },
		{ "stats", no_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	const char *cfg_path = NULL, *cluster = "dta";
	bool print_schema = false, stats = false, on_cluster = false;
	struct export_settings set;
	struct export_core *x = NULL;
	struct dta_config *cfg = NULL;
	char err[1024];
	int opt, rc;

	tool_log_init("dta-export");
	while ((opt = getopt_long(argc, argv, "c:qh", lo, NULL)) != -1) {
		switch (opt) {
		case 'c': cfg_path = optarg; break;
		case 'P': print_schema = true; break;
		case 'C': cluster = optarg; break;
		case 'O': on_cluster = true; break;
		case 'S': stats = true; break;
		case 'q': tool_log_quiet(true); break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("dta-export %s\n", DTA_VERSION_STRING); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!cfg_path || optind != argc) {
		usage(stderr);
		return 2;
	}
	rc = dta_config_load(cfg_path, &cfg, err, sizeof(err));
	if (rc) {
		tool_log(LOG_ERR, "%s", err);
		return 1;
	}
	rc = export_settings_read(cfg, cfg_path, &set, err, sizeof(err));
	if (rc) {
		tool_log(LOG_ERR, "%s: %s", cfg_path, err);
		dta_config_destroy(cfg);
		return 1;
	}
	if (print_schema) {
		rc = export_clickhouse_ddl(cfg, &set, cluster, on_cluster, stdout, err,
					   sizeof(err));
		if (rc)
			tool_log(LOG_ERR, "%s", err);
		dta_config_destroy(cfg);
		return rc ? 1 : 0;
	}
	rc = export_core_open(cfg, &set, &x, err, sizeof(err));
	if (rc) {
		tool_log(LOG_ERR, "%s", err);
		dta_config_destroy(cfg);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	tool_service_init();
	tool_service_ready("exporting from %s", set.source);
	rc = export_core_run(x, &stop);
	tool_service_stopping("stopped");
	if (stats)
		export_core_stats(x, stdout);
	export_core_close(x);
	dta_config_destroy(cfg);
	return rc ? 1 : 0;
}
