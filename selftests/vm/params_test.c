// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: every sysfs setting is also a module parameter. Given at load
 * time it goes through the attribute's own parser: a good value is the
 * setting from the first moment, a bad one fails the load, names the
 * parameter in the kernel log, and leaves nothing loaded.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "vm_reports.h"

#define KC_PARAMS_DIR	"/sys/module/kcollider/parameters"

/* Settings that are not parameters, and why. */
static const char * const not_params[] = {
	"marks",	/* computed from the running kernel by kcollider mark */
	NULL,
};

static bool named_in(const char *name, const char * const *list)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

static long attr_long(const char *name)
{
	char buf[64];

	if (kc_read_attr(name, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int read_param(const char *name, char *buf, size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), KC_PARAMS_DIR "/%s", name);
	return kc_read_file(path, buf, size);
}

FIXTURE(params) {
	int unused;
};

FIXTURE_SETUP(params)
{
	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	kc_unload_module("kcollider");
}

FIXTURE_TEARDOWN(params)
{
	if (!kc_in_vm())
		return;
	kc_write_attr("enabled", "0");
	kc_unload_module("kcollider");
	kc_unload_module("kc_planted");
}

/* A new writable knob without its parameter fails here. */
TEST_F(params, every_writable_setting_is_a_parameter)
{
	char path[512];
	struct dirent *d;
	struct stat st;
	int checked = 0;
	DIR *dir;

	ASSERT_EQ(0, kc_load_module(kc_module_path(), NULL));
	dir = opendir(KCOLLIDER_SYSFS_DIR);
	ASSERT_NE(NULL, dir);
	while ((d = readdir(dir))) {
		snprintf(path, sizeof(path), KCOLLIDER_SYSFS_DIR "/%s",
			 d->d_name);
		if (d->d_name[0] == '.' || stat(path, &st) ||
		    !(st.st_mode & 0200) || named_in(d->d_name, not_params))
			continue;
		snprintf(path, sizeof(path), KC_PARAMS_DIR "/%s", d->d_name);
		EXPECT_TRUE(kc_path_exists(path))
			TH_LOG("%s has no module parameter", d->d_name);
		checked++;
	}
	closedir(dir);
	ASSERT_GE(checked, 10);
}

TEST_F(params, values_given_at_load_are_the_settings)
{
	char buf[4096];

	ASSERT_EQ(0, kc_load_module(kc_module_path(),
				    "sample_rate=37 max_probes=17 dedup_ms=1234 window_atomic_us=77 strict=1 report_style=kcsan suppress=clear,+kc_param_one,+kc_param_two"))
		TH_LOG("load: %s", strerror(errno));
	ASSERT_EQ(37, attr_long("sample_rate"));
	ASSERT_EQ(17, attr_long("max_probes"));
	ASSERT_EQ(1234, attr_long("dedup_ms"));
	ASSERT_EQ(77, attr_long("window_atomic_us"));
	ASSERT_EQ(1, attr_long("strict"));
	ASSERT_LT(0, kc_read_attr("report_style", buf, sizeof(buf)));
	ASSERT_STREQ("kcsan\n", buf);
	ASSERT_LT(0, kc_read_attr("suppress", buf, sizeof(buf)));
	ASSERT_NE(NULL, strstr(buf, "kc_param_one")) TH_LOG("%s", buf);
	ASSERT_NE(NULL, strstr(buf, "kc_param_two")) TH_LOG("%s", buf);
	/* the list was cleared first: only the two */
	ASSERT_EQ(2, count_lines(buf)) TH_LOG("%s", buf);
	/* the parameter shows the live setting, also after a sysfs write */
	ASSERT_LT(0, read_param("sample_rate", buf, sizeof(buf)));
	ASSERT_STREQ("37\n", buf);
	ASSERT_EQ(0, kc_write_attr("sample_rate", "41"));
	ASSERT_LT(0, read_param("sample_rate", buf, sizeof(buf)));
	ASSERT_STREQ("41\n", buf);
	/* read-only in /sys/module: sysfs is where a setting changes */
	ASSERT_NE(0, kc_write_file(KC_PARAMS_DIR "/sample_rate", "5"));
	ASSERT_EQ(41, attr_long("sample_rate"));
	ASSERT_EQ(0, kc_unload_module("kcollider"));
}

TEST_F(params, list_parameter_sets_each_filter)
{
	char buf[4096], first[64], param[256];
	int n;

	/* the first filter's name, whatever the filters are */
	ASSERT_EQ(0, kc_load_module(kc_module_path(), NULL));
	ASSERT_LT(0, kc_read_attr("filters", buf, sizeof(buf)));
	n = sscanf(buf, "%63s", first);
	ASSERT_EQ(1, n);
	ASSERT_NE(NULL, strstr(buf, " on\n")) TH_LOG("%s", buf);
	ASSERT_EQ(0, kc_unload_module("kcollider"));
	snprintf(param, sizeof(param), "filters=%s=off,%s=on,%s=off", first,
		 first, first);
	ASSERT_EQ(0, kc_load_module(kc_module_path(), param))
		TH_LOG("%s: %s", param, strerror(errno));
	ASSERT_LT(0, kc_read_attr("filters", buf, sizeof(buf)));
	snprintf(param, sizeof(param), "%s off\n", first);
	ASSERT_EQ(0, strncmp(buf, param, strlen(param))) TH_LOG("%s", buf);
}

/* Each fails the load, says which parameter, and leaves no module. */
TEST_F(params, bad_value_fails_the_load_and_names_the_parameter)
{
	static const char * const bad[] = {
		"sample_rate=0", "sample_rate=ten", "max_probes=100000",
		"dedup_ms=-1", "strict=maybe", "enabled=2", "enabled",
		"report_style=syzbot", "filters=no_such_filter=off",
		"filters=", "suppress=+ok_name,+bad/name",
		"window_sleep_us=1x", NULL,
	};
	char name[64], quoted[64], *log;
	int i, kmsg;

	for (i = 0; bad[i]; i++) {
		/* ours says NAME=VALUE; the kernel's own, `NAME' */
		snprintf(name, sizeof(name), "%.*s=", (int)strcspn(bad[i], "="),
			 bad[i]);
		snprintf(quoted, sizeof(quoted), "`%.*s'",
			 (int)strcspn(bad[i], "="), bad[i]);
		kmsg = kc_kmsg_from_now();
		ASSERT_LE(0, kmsg);
		errno = 0;
		EXPECT_NE(0, kc_load_module(kc_module_path(), bad[i]))
			TH_LOG("%s loaded", bad[i]);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s: %s", bad[i], strerror(errno));
		EXPECT_FALSE(kc_path_exists(KCOLLIDER_SYSFS_DIR)) {
			TH_LOG("%s left the module loaded", bad[i]);
			kc_unload_module("kcollider");
		}
		log = kc_kmsg_text(kmsg);
		close(kmsg);
		ASSERT_NE(NULL, log);
		EXPECT_TRUE(strstr(log, name) || strstr(log, quoted))
			TH_LOG("%s: no message naming it in\n%s", bad[i], log);
		EXPECT_EQ(NULL, strstr(log, "Call Trace")) TH_LOG("%s", log);
		free(log);
	}
	/* and a good one still loads afterwards */
	ASSERT_EQ(0, kc_load_module(kc_module_path(), "sample_rate=5"));
	ASSERT_EQ(5, attr_long("sample_rate"));
}

/* What a farm's /etc/modprobe.d line does: sampling from the load on. */
/*
 * A target's sites at load: kc_r29_add reads a pointer, then adds to its
 * CPU's alloc_percpu() copy through it, %gs-relative (a site by default).
 */
#define R29_ADD	"targets=kc_planted:kc_r29_add"

static long r29_add_sites(const char *params)
{
	char buf[512], *p;
	long n;

	if (kc_load_module(kc_module_path(), params))
		return -1;
	p = kc_read_attr("targets", buf, sizeof(buf)) > 0 ?
	    strstr(buf, "kc_planted:kc_r29_add sites=") : NULL;
	n = p ? strtol(strchr(p, '=') + 1, NULL, 10) : -1;
	if (kc_unload_module("kcollider"))
		return -1;
	return n;
}

/*
 * Which sites a target has depends on sample_percpu: given at load beside
 * the targets, it applies to them (the settings go in before the targets).
 */
TEST_F(params, settings_given_at_load_apply_to_the_initial_targets)
{
	long plain;

	ASSERT_EQ(0, load_planted());
	plain = r29_add_sites(R29_ADD " sample_percpu=0");
	ASSERT_LE(0, plain);
	EXPECT_LT(plain, r29_add_sites(R29_ADD));
	EXPECT_EQ(plain, r29_add_sites("sample_percpu=0 " R29_ADD));
}

TEST_F_TIMEOUT(params, enabled_at_load_samples_the_targets, 150)
{
	ASSERT_EQ(0, load_planted());
	ASSERT_EQ(0, kc_load_module(kc_module_path(), "targets=module:kc_planted sample_rate=200 enabled=1"))
		TH_LOG("load: %s", strerror(errno));
	ASSERT_EQ(1, attr_long("enabled"));
	ASSERT_LT(0, kc_stat("sites"));
	ASSERT_GE(run_until_stat("r1", "fired", 1, 60), 1);
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	ASSERT_EQ(0, kc_unload_module("kcollider"));
}

TEST_HARNESS_MAIN
