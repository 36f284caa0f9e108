/* SPDX-License-Identifier: BSD-3-Clause */
/* Internals of the client (client.c) that tests and fuzz harnesses use. */
#ifndef DTA_CLIENT_INTERNAL_H
#define DTA_CLIENT_INTERNAL_H

#include "dta/client.h"

/*
 * dta__client_open_fd() - a client over @fd, a connected stream socket
 * to a collector, as "unix:" opens one after connecting (no SO_PEERCRED
 * check): the `binary` switch (unless DTA_CLIENT_TEXT is in @flags), then
 * `info`. Takes @fd (closed on error and by dta_client_close()).
 * Return: dta_client_open()'s codes.
 */
int dta__client_open_fd(int fd, unsigned flags, struct dta_client **out);

#endif /* DTA_CLIENT_INTERNAL_H */
