/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the in-VM tests that run planted races and read the
 * detector's report log: one copy for every test program.
 */
#ifndef KC_VM_REPORTS_H
#define KC_VM_REPORTS_H

#include "vm_util.h"

#define PLANTED_RUN	"/sys/kernel/debug/kc_planted/run"
#define REPORTS		"/sys/kernel/debug/kcollider/reports"
#define LOG_SIZE	(1 << 20)

static char *log_buf;


static inline const char *read_reports(void)
{
	if (!log_buf)
		log_buf = malloc(LOG_SIZE);
	if (!log_buf || kc_read_file(REPORTS, log_buf, LOG_SIZE) < 0)
		return "";
	return log_buf;
}

/* Copy report number @i (0-based) of @log into @out; false if none. */
static inline bool nth_report(const char *log, int i, char *out, size_t size)
{
	const char *title = "BUG: KCOLLIDER: ";
	const char *p = log, *end;
	size_t len;

	for (;;) {
		p = strstr(p, title);
		if (!p)
			return false;
		if ((p == log || p[-1] == '\n') && i-- == 0)
			break;
		p++;
	}
	end = strstr(p + 1, "\nBUG: KCOLLIDER: ");
	len = end ? (size_t)(end - p) : strlen(p);
	if (len >= size)
		len = size - 1;
	memcpy(out, p, len);
	out[len] = '\0';
	return true;
}

/* First report containing every string of the NULL-terminated @needles. */
static inline bool find_report(const char *log, const char * const *needles,
			char *out, size_t size)
{
	int i, j;

	for (i = 0; nth_report(log, i, out, size); i++) {
		for (j = 0; needles[j]; j++)
			if (!strstr(out, needles[j]))
				break;
		if (!needles[j])
			return true;
	}
	return false;
}

static inline int count_reports(const char *log)
{
	static char tmp[16384];
	int i = 0;

	while (nth_report(log, i, tmp, sizeof(tmp)))
		i++;
	return i;
}

/* Access block @k (0: the racer, 1: the sampled access) of a report. */
static inline bool report_block(const char *report, int k, char *out, size_t size)
{
	const char *p = report, *end;
	size_t len;

	while ((p = strstr(p, " bytes by "))) {
		while (p > report && p[-1] != '\n')
			p--;
		if (k-- == 0)
			break;
		p = strchr(p, '\n');
		if (!p)
			return false;
	}
	if (!p)
		return false;
	end = strstr(p, "\n\n");
	len = end ? (size_t)(end - p) : strlen(p);
	if (len >= size)
		len = size - 1;
	memcpy(out, p, len);
	out[len] = '\0';
	return true;
}

static inline int run_scenario(const char *name, int ms)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "%s %d\n", name, ms);
	return kc_write_file(PLANTED_RUN, cmd);
}

/*
 * Run @scenario in 2 s slices until @needle is in the report log or
 * @budget_s seconds have passed: no test depends on a lucky first slice.
 */
static inline bool run_until_report(const char *scenario, const char *needle,
				    int budget_s)
{
	int t;

	for (t = 0; t < budget_s; t += 2) {
		if (run_scenario(scenario, 2000))
			return false;
		if (strstr(read_reports(), needle))
			return true;
	}
	return false;
}

/*
 * Run @scenario in 1 s slices until counter @stat reaches @min or
 * @budget_s seconds have passed; returns the last value read. How soon a
 * probe fires depends on the host's load, never how sure the test is.
 */
static inline long run_until_stat(const char *scenario, const char *stat,
				  long min, int budget_s)
{
	long v = kc_stat(stat);
	int t;

	for (t = 0; t < budget_s && v < min; t++) {
		if (run_scenario(scenario, 1000))
			return -1;
		v = kc_stat(stat);
	}
	return v;
}

#define PLANTED_FACTS	"/sys/kernel/debug/kc_planted/facts"

/* Value of "key VALUE" in the planted module's facts, as a string. */
static inline bool planted_fact(const char *key, char *val, size_t size)
{
	static char buf[8192];
	char *p = buf;
	size_t len = strlen(key);

	if (kc_read_file(PLANTED_FACTS, buf, sizeof(buf)) < 0)
		return false;
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, len) && p[len] == ' ') {
			snprintf(val, size, "%.*s", (int)strcspn(p + len + 1, "\n"),
				 p + len + 1);
			return true;
		}
	}
	return false;
}

#endif /* KC_VM_REPORTS_H */
