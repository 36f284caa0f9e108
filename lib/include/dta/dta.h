/* SPDX-License-Identifier: BSD-3-Clause */
/* libdta umbrella header. */
#ifndef DTA_DTA_H
#define DTA_DTA_H

#include "dta/common.h"
#include "dta/hash.h"
#include "dta/wire.h"
#include "dta/layout.h"
#include "dta/region.h"
#include "dta/keywrite.h"
#include "dta/postcard.h"
#include "dta/append.h"
#include "dta/keyincr.h"
#include "dta/epoch.h"
#include "dta/analysis.h"
#include "dta/config.h"
#include "dta/translator.h"
#include "dta/meta.h"
#include "dta/roce.h"
#include "dta/int.h"
#include "dta/schema.h"
#include "dta/exec.h"
#include "dta/frame.h"
#include "dta/client.h"
#include "dta/int_query.h"

#define DTA_VERSION_MAJOR 0
#define DTA_VERSION_MINOR 1
#define DTA_VERSION_PATCH 0
#define DTA_VERSION_STRING "0.1.0"

#endif /* DTA_DTA_H */
